import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Meeting } from '../../../simulator/meeting.js';
import type { PageEvent } from '../../../simulator/page-protocol.js';
import type { PageConnection } from '../../../simulator/page-session.js';
import { type CreateMeetingInput, createMeetingInput } from '../../../simulator/schema.js';
import { planChat, planParticipants, planUtterances } from '../../../simulator/timeline.js';

const SECOND = 1000;

function meetingFrom(input: Omit<CreateMeetingInput, 'platform'>, durationSeconds = 1): Meeting {
  const script = createMeetingInput.parse({ platform: 'google_meet', ...input });
  const participants = planParticipants(script.participants);
  return new Meeting({
    id: 'abc-defg-hij',
    platform: 'google_meet',
    passcode: null,
    spaceId: 'space1',
    url: 'http://127.0.0.1:1/abc-defg-hij',
    script,
    participants,
    utterances: planUtterances(script.participants, participants, () => durationSeconds),
    chat: planChat(script.participants, participants),
    audioUrlOf: (id) => `/audio/${id}.wav`,
    pageGoneGraceMs: 2 * SECOND,
  });
}

function page(): PageConnection & { events: PageEvent[]; named: (name: PageEvent['event']) => PageEvent[] } {
  const events: PageEvent[] = [];
  return {
    events,
    send: (event) => events.push(event),
    named: (name) => events.filter((e) => e.event === name),
  };
}

const ask = { type: 'ask', name: 'Notetaker', micOn: false, cameraOn: false } as const;

describe('Meeting', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits after the scripted delay and only then starts the timeline', () => {
    const meeting = meetingFrom({
      admission: { policy: 'after', delaySeconds: 2 },
      participants: [{ name: 'Alice', utterances: [{ at: 1, text: 'hello' }] }],
    });
    const tab = page();
    meeting.connect('session-1', tab);
    expect(meeting.snapshot().bot.state).toBe('prejoin');
    meeting.act('session-1', ask);
    expect(meeting.snapshot().bot).toMatchObject({ state: 'lobby', name: 'Notetaker', micOn: false });
    vi.advanceTimersByTime(1.9 * SECOND);
    expect(meeting.snapshot().bot.state).toBe('lobby');
    vi.advanceTimersByTime(0.2 * SECOND);
    expect(meeting.snapshot().bot.state).toBe('in_call');
    expect(tab.named('play')).toEqual([]);
    vi.advanceTimersByTime(1 * SECOND);
    expect(tab.named('play')).toEqual([{ event: 'play', data: { utteranceId: 'u1' } }]);
    expect(meeting.snapshot().utterances[0]!.status).toBe('sent');
  });

  it('refuses the first join requests with the refusal screen, then admits as scripted', () => {
    const meeting = meetingFrom({
      admission: { policy: 'open' },
      refusal: { screen: 'bot_detection', attempts: 2 },
    });
    for (const session of ['launch-1', 'launch-2']) {
      const tab = page();
      meeting.connect(session, tab);
      meeting.act(session, ask);
      expect(meeting.snapshot().bot).toMatchObject({ state: 'blocked', refusal: 'bot_detection' });
      expect(tab.named('state').at(-1)).toEqual({
        event: 'state',
        data: { state: 'blocked', refusal: 'bot_detection' },
      });
    }
    meeting.connect('launch-3', page());
    meeting.act('launch-3', ask);
    expect(meeting.snapshot().bot).toMatchObject({ state: 'in_call', refusal: null });
  });

  it('a verification refusal without a count refuses every join request', () => {
    const meeting = meetingFrom({ refusal: { screen: 'verification' } });
    for (const session of ['launch-1', 'launch-2', 'launch-3']) {
      meeting.connect(session, page());
      meeting.act(session, ask);
      expect(meeting.snapshot().bot, session).toMatchObject({ state: 'blocked', refusal: 'verification' });
    }
  });

  it('records what the bot’s page reports about playback', () => {
    const meeting = meetingFrom({
      admission: { policy: 'open' },
      participants: [{ name: 'Alice', utterances: [{ at: 0, text: 'hello' }] }],
    });
    meeting.connect('session-1', page());
    meeting.act('session-1', ask);
    vi.advanceTimersByTime(1);
    const startedAt = '2026-01-01T10:00:00.000Z';
    const endedAt = '2026-01-01T10:00:01.000Z';
    meeting.act('session-1', {
      type: 'utterance-started',
      utteranceId: 'u1',
      at: startedAt,
      slot: 2,
      beforeTracks: false,
    });
    meeting.act('session-1', { type: 'utterance-ended', utteranceId: 'u1', at: endedAt });
    expect(meeting.snapshot().utterances[0]).toMatchObject({ status: 'played', startedAt, endedAt, slot: 2 });
  });

  it('holds the timeline behind the recording dialog until it is answered', () => {
    const meeting = meetingFrom({
      admission: { policy: 'open' },
      traps: { recordingDialog: true },
      participants: [{ name: 'Alice', utterances: [{ at: 0.5, text: 'hello' }] }],
    });
    const tab = page();
    meeting.connect('session-1', tab);
    meeting.act('session-1', ask);
    expect(meeting.snapshot().bot.state).toBe('admitted');
    vi.advanceTimersByTime(5 * SECOND);
    expect(tab.named('play')).toEqual([]);
    meeting.act('session-1', { type: 'accept-dialog' });
    vi.advanceTimersByTime(0.5 * SECOND);
    expect(tab.named('play')).toHaveLength(1);
  });

  it('waits for the host, who may deny; a lobby timeout ends the wait', () => {
    const denied = meetingFrom({ admission: { policy: 'host' } });
    denied.connect('s', page());
    expect(() => denied.admit()).toThrow(/not in state lobby/);
    denied.act('s', ask);
    vi.advanceTimersByTime(60 * SECOND);
    expect(denied.snapshot().bot.state).toBe('lobby');
    denied.deny();
    expect(denied.snapshot().bot.state).toBe('denied');

    const ignored = meetingFrom({ admission: { policy: 'host', timeoutSeconds: 3 } });
    ignored.connect('s', page());
    ignored.act('s', ask);
    vi.advanceTimersByTime(3 * SECOND);
    expect(ignored.snapshot().bot.state).toBe('timed_out');
  });

  it('counts a page gone longer than the grace period as leaving, but survives a reload', () => {
    const meeting = meetingFrom({ admission: { policy: 'open' } });
    const first = page();
    meeting.connect('s', first);
    meeting.act('s', ask);
    meeting.disconnect('s', first);
    vi.advanceTimersByTime(1 * SECOND);
    meeting.connect('s', page());
    vi.advanceTimersByTime(5 * SECOND);
    expect(meeting.snapshot().bot).toMatchObject({ state: 'in_call', pageConnected: true });

    const second = page();
    meeting.connect('s', second);
    meeting.disconnect('s', second);
    expect(meeting.snapshot().bot.state).toBe('in_call');
    // The first reconnected connection is still open, so closing this one changes nothing.
    vi.advanceTimersByTime(5 * SECOND);
    expect(meeting.snapshot().bot.state).toBe('in_call');
  });

  it('marks the bot left with page_closed when its only page goes away', () => {
    const meeting = meetingFrom({ admission: { policy: 'open' } });
    const tab = page();
    meeting.connect('s', tab);
    meeting.act('s', ask);
    meeting.disconnect('s', tab);
    vi.advanceTimersByTime(2 * SECOND);
    expect(meeting.snapshot().bot).toMatchObject({
      state: 'left',
      leaveReason: 'page_closed',
      pageConnected: false,
    });
    expect(meeting.snapshot().bot.leftAt).not.toBeNull();
  });

  it('stops people joining and speaking once everyone left, and ends for the bot on end', () => {
    const meeting = meetingFrom({
      admission: { policy: 'open' },
      participants: [
        { name: 'Alice', utterances: [{ at: 5, text: 'later' }] },
        { name: 'Bob', joinAt: 2 },
      ],
    });
    const tab = page();
    meeting.connect('s', tab);
    meeting.act('s', ask);
    meeting.everyoneLeaves();
    vi.advanceTimersByTime(10 * SECOND);
    const snapshot = meeting.snapshot();
    expect(snapshot.participants.map((p) => p.present)).toEqual([false, false]);
    expect(snapshot.participants[1]!.joinedAt).toBeNull();
    expect(snapshot.utterances[0]!.status).toBe('missed');
    expect(tab.named('participants').at(-1)).toEqual({ event: 'participants', data: { present: [] } });

    meeting.end();
    expect(meeting.snapshot()).toMatchObject({ status: 'ended', bot: { state: 'ended' } });
    const late = page();
    meeting.connect('another', late);
    expect(late.events).toEqual([{ event: 'hello', data: { found: false, reason: 'ended' } }]);
  });

  it('gives up on audio the page never starts', () => {
    const meeting = meetingFrom(
      {
        admission: { policy: 'open' },
        participants: [{ name: 'Alice', utterances: [{ at: 0, text: 'hello?' }] }],
      },
      2,
    );
    meeting.connect('s', page());
    meeting.act('s', ask);
    vi.advanceTimersByTime(16 * SECOND);
    expect(meeting.snapshot().utterances[0]!.status).toBe('sent');
    vi.advanceTimersByTime(2 * SECOND);
    expect(meeting.snapshot().utterances[0]!.status).toBe('missed');
  });

  it('cuts what is sent or playing when the bot is removed', () => {
    const meeting = meetingFrom(
      {
        admission: { policy: 'open' },
        participants: [
          { name: 'Alice', utterances: [{ at: 0, text: 'never started' }] },
          { name: 'Bob', utterances: [{ at: 1, text: 'started' }] },
        ],
      },
      2,
    );
    meeting.connect('s', page());
    meeting.act('s', ask);
    vi.advanceTimersByTime(1 * SECOND);
    meeting.act('s', {
      type: 'utterance-started',
      utteranceId: 'u2',
      at: new Date().toISOString(),
      slot: null,
      beforeTracks: false,
    });
    meeting.removeBot();
    expect(meeting.snapshot().utterances.map((u) => u.status)).toEqual(['cut', 'cut']);
    expect(meeting.snapshot().bot.state).toBe('removed');
  });

  it('misses speech while the bot is not in the call', () => {
    const meeting = meetingFrom({
      admission: { policy: 'open' },
      participants: [{ name: 'Alice', utterances: [{ at: 2, text: 'anyone there?' }] }],
    });
    meeting.connect('s', page());
    meeting.act('s', ask);
    meeting.act('s', { type: 'leave', via: 'leave_button' });
    vi.advanceTimersByTime(3 * SECOND);
    expect(meeting.snapshot().utterances[0]!.status).toBe('missed');
    expect(meeting.snapshot().bot.leaveReason).toBe('leave_button');
  });

  it('writes the scripted chat at its seconds to every page, keeps it for pages that connect later, and takes the bot page’s messages under its name', () => {
    const meeting = meetingFrom({
      admission: { policy: 'open' },
      participants: [
        { name: 'Alice', chat: [{ at: 1, text: 'hi all' }] },
        { name: 'Bob', leaveAt: 2, chat: [{ at: 1.5, text: 'bye soon' }] },
      ],
    });
    const bot = page();
    meeting.connect('session-1', bot);
    expect(() => meeting.act('session-1', { type: 'chat-send', text: 'too early' })).toThrow(/prejoin/);
    meeting.act('session-1', ask);
    vi.advanceTimersByTime(1.6 * SECOND);
    expect(bot.named('chat').map((e) => e.data)).toEqual([
      { id: 'c1', sender: 'Alice', text: 'hi all', at: expect.any(String), mine: false },
      { id: 'c2', sender: 'Bob', text: 'bye soon', at: expect.any(String), mine: false },
    ]);
    meeting.act('session-1', { type: 'chat-send', text: 'noted' });
    const other = page();
    meeting.connect('session-2', other);
    const hello = other.named('hello')[0]!;
    if (hello.event !== 'hello' || !hello.data.found) throw new Error('no meeting hello');
    expect(hello.data.chat.map((m) => [m.sender, m.text, m.mine])).toEqual([
      ['Alice', 'hi all', false],
      ['Bob', 'bye soon', false],
      ['Notetaker', 'noted', false],
    ]);
    expect(bot.named('chat').at(-1)?.data).toMatchObject({ sender: 'Notetaker', text: 'noted', mine: true });
    expect(meeting.snapshot().chat.map((m) => [m.sender, m.from, m.participantId])).toEqual([
      ['Alice', 'participant', 'p1'],
      ['Bob', 'participant', 'p2'],
      ['Notetaker', 'bot', null],
    ]);
  });
});
