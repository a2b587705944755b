import { describe, expect, it } from 'vitest';
import type { PageMedia } from '../../../bot/actions/page-media.js';
import { SPEAK_QUEUE_LIMIT, Speaker } from '../../../bot/actions/speaker.js';
import type { SpeechAudio, SpeechSynthesizer } from '../../../bot/voices/voice.js';
import type { SpeakCommand } from '../../../shared/contract/commands.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('speaker-test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A page microphone whose clips "play" for as long as their samples last. */
class FakeMicrophone implements PageMedia {
  readonly events: string[] = [];
  private queueEnd = 0;
  taken: number | null = null;

  async playPcm(samples: Int16Array, sampleRate: number) {
    return this.schedule(`pcm:${samples.length}@${sampleRate}`, (samples.length / sampleRate) * 1000);
  }
  async playEncoded(bytes: Uint8Array) {
    return this.schedule(`clip:${Buffer.from(bytes).toString()}`, 20);
  }
  private schedule(what: string, durationMs: number) {
    const now = Date.now();
    const start = Math.max(now, this.queueEnd);
    this.queueEnd = start + durationMs;
    this.events.push(`play ${what}`);
    return { startsInMs: start - now, durationMs };
  }
  async remainingMs() {
    return Math.max(0, this.queueEnd - Date.now());
  }
  async takenAt() {
    return this.taken;
  }
  async stop() {
    this.queueEnd = 0;
    this.events.push('stop');
  }
  async showImage() {
    return { width: 1, height: 1 };
  }
  async hideImage() {}
  async cameraTakenAt() {
    return null;
  }
}

class FakeToggle {
  constructor(private readonly events: string[]) {}
  on = false;
  async setMicrophone(on: boolean) {
    this.on = on;
    this.events.push(on ? 'unmute' : 'mute');
    return true;
  }
}

/** Ten samples per character at 1 kHz: a piece "plays" for 10 ms per character. */
const synthesizer: SpeechSynthesizer = {
  name: 'fake',
  async synthesize(text): Promise<SpeechAudio> {
    return { kind: 'pcm', sampleRate: 1000, samples: new Int16Array(text.length * 10) };
  },
};

function speak(requestId: string, text: string): SpeakCommand {
  return { type: 'speak', requestId, text, issuedAt: new Date().toISOString() };
}

function setup() {
  const microphone = new FakeMicrophone();
  microphone.taken = Date.now();
  const toggle = new FakeToggle(microphone.events);
  const speaker = new Speaker(microphone, toggle, synthesizer, log);
  const idle = async () => {
    for (let i = 0; i < 200 && speaker.busy; i++) await sleep(20);
    expect(speaker.busy).toBe(false);
  };
  return { microphone, toggle, speaker, idle };
}

describe('Speaker', () => {
  it('waits for the call, then unmutes, plays every piece in order and mutes after', async () => {
    const { microphone, toggle, speaker, idle } = setup();
    speaker.enqueue(speak('a', 'First sentence here. Second one.'));
    speaker.enqueue(speak('b', 'Third.'));
    await sleep(30);
    expect(microphone.events).toEqual([]);
    speaker.admitted();
    await idle();
    expect(microphone.events).toEqual([
      'unmute',
      'play pcm:200@1000',
      'play pcm:110@1000',
      'play pcm:60@1000',
      'mute',
    ]);
    expect(toggle.on).toBe(false);
  });

  it('plays a clip as it was given', async () => {
    const { microphone, speaker, idle } = setup();
    speaker.admitted();
    speaker.enqueue({
      type: 'speak',
      requestId: 'c',
      audio: { format: 'mp3', base64: Buffer.from('CLIP').toString('base64') },
      issuedAt: new Date().toISOString(),
    });
    await idle();
    expect(microphone.events).toEqual(['unmute', 'play clip:CLIP', 'mute']);
  });

  it('stop drops the queue, stops playback and mutes; later requests play again', async () => {
    const { microphone, toggle, speaker, idle } = setup();
    speaker.admitted();
    speaker.enqueue(speak('long', `${'A long sentence with many words in it. '.repeat(20)}`));
    speaker.enqueue(speak('next', 'Never said.'));
    await sleep(40);
    await speaker.stop();
    await idle();
    expect(toggle.on).toBe(false);
    expect(microphone.events).toContain('stop');
    expect(microphone.events.at(-1)).toBe('mute');
    expect(microphone.events.filter((event) => event.startsWith('play')).length).toBeLessThan(5);
    expect(microphone.events).not.toContain('play pcm:110@1000');

    microphone.events.length = 0;
    speaker.enqueue(speak('after', 'Again.'));
    await sleep(10);
    await idle();
    expect(microphone.events).toEqual(['unmute', 'play pcm:60@1000', 'mute']);
  });

  it('waits for the page to take the microphone track after the first unmute', async () => {
    const { microphone, speaker, idle } = setup();
    microphone.taken = null;
    setTimeout(() => {
      microphone.events.push('page took the track');
      microphone.taken = Date.now();
    }, 150);
    speaker.admitted();
    speaker.enqueue(speak('a', 'Hello.'));
    await idle();
    expect(microphone.events).toEqual(['unmute', 'page took the track', 'play pcm:60@1000', 'mute']);
  });

  it('drops requests past its queue limit', async () => {
    const { microphone, speaker, idle } = setup();
    for (let i = 0; i < SPEAK_QUEUE_LIMIT + 5; i++) speaker.enqueue(speak(`r${i}`, 'Hi.'));
    speaker.admitted();
    await idle();
    expect(microphone.events.filter((event) => event.startsWith('play'))).toHaveLength(SPEAK_QUEUE_LIMIT);
  });
});
