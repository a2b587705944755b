import { describe, expect, it } from 'vitest';
import { MeetingChat } from '../../../../bot/actions/chat.js';
import type { PanelChatMessage, PlatformChat } from '../../../../bot/platforms/driver.js';
import type { ChatMessageEvent } from '../../../../shared/contract/events.js';
import { createLogger } from '../../../../shared/infra/logger.js';

const log = createLogger('chat-test', 'silent');
const NOW = Date.parse('2026-11-25T10:00:00.000Z');

class FakePanel implements PlatformChat {
  opens = 0;
  openable = true;
  failSends = 0;
  shown: PanelChatMessage[] = [];
  sent: string[] = [];

  async open(): Promise<boolean> {
    this.opens += 1;
    return this.openable;
  }

  async read(): Promise<PanelChatMessage[]> {
    return [...this.shown];
  }

  async send(text: string): Promise<void> {
    if (this.failSends > 0) {
      this.failSends -= 1;
      throw new Error('panel closed');
    }
    this.sent.push(text);
    this.shown.push({ key: `k${this.shown.length}`, sender: null, own: false, text, sentAt: null });
  }
}

function setup() {
  const clock = { now: NOW };
  const panel = new FakePanel();
  const published: Omit<ChatMessageEvent, 'meetingId' | 'sessionId'>[] = [];
  const chat = new MeetingChat({
    chat: panel,
    publish: async (message) => {
      published.push(message);
    },
    botName: () => 'Notetaker',
    transcriptSeconds: (wall) => (wall - (NOW - 60_000)) / 1000,
    log,
    now: () => clock.now,
  });
  return { panel, published, chat, clock };
}

const command = (id: string, text: string, issuedAt = new Date(NOW - 1000).toISOString()) => ({
  type: 'chat.send' as const,
  id,
  text,
  issuedAt,
});

describe('MeetingChat', () => {
  it('opens the panel once, publishes each message once, with the time on the transcript time line', async () => {
    const { panel, published, chat } = setup();
    panel.shown = [
      { key: 'a', sender: 'Alice', own: false, text: 'hello', sentAt: null },
      { key: 'b', sender: 'Bob', own: false, text: 'hi', sentAt: NOW - 30_000 },
    ];
    await chat.tick();
    await chat.tick();
    expect(panel.opens).toBe(1);
    expect(published).toEqual([
      {
        messageKey: 'a',
        sender: 'Alice',
        text: 'hello',
        fromBot: false,
        sentAt: new Date(NOW).toISOString(),
        seconds: 60,
      },
      {
        messageKey: 'b',
        sender: 'Bob',
        text: 'hi',
        fromBot: false,
        sentAt: new Date(NOW - 30_000).toISOString(),
        seconds: 30,
      },
    ]);
  });

  it('sends queued commands in order, once, and publishes them as the bot', async () => {
    const { panel, published, chat } = setup();
    panel.shown = [{ key: 'a', sender: 'Alice', own: false, text: 'hello', sentAt: null }];
    chat.enqueue(command('00000000-0000-4000-8000-000000000001', 'first'));
    chat.enqueue(command('00000000-0000-4000-8000-000000000002', 'second'));
    chat.enqueue(command('00000000-0000-4000-8000-000000000001', 'first'));
    await chat.tick();
    expect(panel.sent).toEqual(['first', 'second']);
    expect(published.map((m) => [m.sender, m.text, m.fromBot])).toEqual([
      ['Alice', 'hello', false],
      ['Notetaker', 'first', true],
      ['Notetaker', 'second', true],
    ]);
  });

  it('skips a command older than the limit (an earlier bot of the meeting had it)', async () => {
    const { panel, chat } = setup();
    chat.enqueue(
      command('00000000-0000-4000-8000-000000000003', 'stale', new Date(NOW - 10 * 60_000).toISOString()),
    );
    await chat.tick();
    expect(panel.sent).toEqual([]);
    expect(chat.unsent()).toBe(0);
  });

  it('keeps a message whose send failed and sends it on a later look, reopening the panel', async () => {
    const { panel, chat } = setup();
    panel.failSends = 1;
    chat.enqueue(command('00000000-0000-4000-8000-000000000004', 'retry me'));
    await chat.tick();
    expect(chat.unsent()).toBe(1);
    await chat.tick();
    expect(panel.sent).toEqual(['retry me']);
    expect(panel.opens).toBe(2);
  });

  it('gives an authorless message that the bot did not send to the author before it', async () => {
    const { panel, published, chat } = setup();
    panel.shown = [
      { key: 'a', sender: 'Alice', own: false, text: 'one', sentAt: null },
      { key: 'b', sender: null, own: false, text: 'two', sentAt: null },
      { key: 'c', sender: null, own: true, text: 'mine', sentAt: null },
    ];
    await chat.tick();
    expect(published.map((m) => [m.sender, m.fromBot])).toEqual([
      ['Alice', false],
      ['Alice', false],
      ['Notetaker', true],
    ]);
  });

  it('does nothing until the panel opens, and tries again only 15 s after a failed opening', async () => {
    const { panel, published, chat, clock } = setup();
    panel.openable = false;
    panel.shown = [{ key: 'a', sender: 'Alice', own: false, text: 'hello', sentAt: null }];
    await chat.tick();
    await chat.tick();
    expect(panel.opens).toBe(1);
    expect(published).toEqual([]);
    panel.openable = true;
    clock.now += 15_000;
    await chat.tick();
    expect(panel.opens).toBe(2);
    expect(published.map((m) => m.text)).toEqual(['hello']);
  });
});
