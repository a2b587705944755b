import type { SpeakCommand } from '../../shared/contract/commands.js';
import { sleep } from '../../shared/infra/async.js';
import type { Logger } from '../../shared/infra/logger.js';
import { trimLeadingSilence } from '../voices/silence.js';
import { speechChunks } from '../voices/text-chunks.js';
import type { SpeechAudio, SpeechSynthesizer } from '../voices/voice.js';
import type { PageMedia } from './page-media.js';

/** Switches the bot's microphone through the platform's own toggle; true when it is now as asked. */
export interface MicrophoneToggle {
  setMicrophone(on: boolean): Promise<boolean>;
}

/** How long a page may take to pick up the microphone track after the first unmute. */
const TRACK_TAKEN_LIMIT_MS = 1500;
/** Kept on after the last sample, so the end of the voice reaches the meeting before the mute. */
const TAIL_MS = 250;
/** Silence kept before the first piece's voice, and before each later piece's (a pause between sentences). */
const FIRST_LEAD_MS = 30;
const LATER_LEAD_MS = 60;
/** How many requests may wait behind the one playing; more are dropped (the API refuses them first). */
export const SPEAK_QUEUE_LIMIT = 20;

/**
 * The bot's voice: plays speak requests in order into the page's synthetic microphone, text in
 * sentence-sized pieces (the next one synthesised while the current one plays), unmuting through
 * the platform's toggle only while it speaks and muting after. `stop` interrupts everything.
 */
export class Speaker {
  private readonly queue: SpeakCommand[] = [];
  /** Bumped by stop(): work of an older generation gives up at its next step. */
  private generation = 0;
  private draining: Promise<void> | null = null;
  private inCall = false;
  private micOn = false;

  constructor(
    private readonly microphone: PageMedia,
    private readonly toggle: MicrophoneToggle,
    private readonly synthesizer: SpeechSynthesizer,
    private readonly log: Logger,
  ) {}

  /** Whether the bot is speaking or about to (the session leaves the mic toggle alone meanwhile). */
  get busy(): boolean {
    return this.draining !== null || this.micOn;
  }

  /** Requests wait until the bot is in the call. */
  admitted(): void {
    this.inCall = true;
    this.kick();
  }

  enqueue(command: SpeakCommand): void {
    if (this.queue.length >= SPEAK_QUEUE_LIMIT) {
      this.log.warn({ requestId: command.requestId }, 'speech queue full; dropping the request');
      return;
    }
    this.queue.push(command);
    this.kick();
  }

  /** Stops the clip playing, drops the queue and mutes. */
  async stop(): Promise<void> {
    this.generation += 1;
    const dropped = this.queue.length;
    this.queue.length = 0;
    await this.microphone
      .stop()
      .catch((error: unknown) => this.log.warn({ err: error }, 'stopping playback failed'));
    await this.mute();
    this.log.info({ dropped }, 'speech interrupted');
  }

  private kick(): void {
    if (this.draining || !this.inCall || this.queue.length === 0) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      this.kick();
    });
  }

  private async drain(): Promise<void> {
    const generation = this.generation;
    while (this.queue.length > 0 && generation === this.generation) {
      const command = this.queue.shift()!;
      try {
        await this.say(command, generation);
      } catch (error) {
        this.log.warn({ err: error, requestId: command.requestId }, 'could not speak a request');
      }
    }
    if (generation === this.generation) await this.waitPlayed(generation);
    // Also after a stop that came while unmuting: the toggle may have gone on after stop() muted.
    await this.mute();
  }

  private async say(command: SpeakCommand, generation: number): Promise<void> {
    const pieces: (() => Promise<SpeechAudio>)[] = command.text
      ? speechChunks(command.text).map(
          (text) => () =>
            this.synthesizer.synthesize(text, { voice: command.voice, language: command.language }),
        )
      : command.audio
        ? [async () => ({ kind: 'encoded', bytes: Buffer.from(command.audio!.base64, 'base64') })]
        : [];
    const started = Date.now();
    let next: Promise<SpeechAudio> | undefined = pieces[0]?.();
    const unmuting = this.unmute();
    for (let index = 0; index < pieces.length && next; index++) {
      const audio = await next;
      next = pieces[index + 1]?.();
      // Keep the synthesis of the next piece from failing unobserved if this one is interrupted.
      next?.catch(() => {});
      if (index === 0 && !(await unmuting)) throw new Error('could not unmute the microphone');
      if (generation !== this.generation) return;
      const scheduled =
        audio.kind === 'pcm'
          ? await this.microphone.playPcm(
              trimLeadingSilence(
                audio.samples,
                audio.sampleRate,
                index === 0 ? FIRST_LEAD_MS : LATER_LEAD_MS,
              ),
              audio.sampleRate,
            )
          : await this.microphone.playEncoded(audio.bytes);
      if (index === 0) {
        this.log.info(
          { requestId: command.requestId, pieces: pieces.length, firstSoundAfterMs: Date.now() - started },
          'speaking',
        );
      }
      // Queue at most about one piece ahead, so a stop never leaves much scheduled and synthesis
      // keeps pace with playback.
      const ahead = scheduled.startsInMs + scheduled.durationMs;
      if (pieces[index + 1]) await sleep(Math.max(0, ahead - 400));
    }
  }

  private async waitPlayed(generation: number): Promise<void> {
    for (;;) {
      if (generation !== this.generation) return;
      const remaining = await this.microphone.remainingMs().catch(() => 0);
      if (remaining <= 0) break;
      await sleep(Math.min(remaining, 200));
    }
    await sleep(TAIL_MS);
  }

  private async unmute(): Promise<boolean> {
    if (this.micOn) return true;
    const before = await this.microphone.takenAt().catch(() => null);
    const on = await this.toggle.setMicrophone(true);
    if (!on) return false;
    this.micOn = true;
    // The first unmute is when a page takes the microphone track: wait for it, or the first words go nowhere.
    if (before === null) {
      const deadline = Date.now() + TRACK_TAKEN_LIMIT_MS;
      while (Date.now() < deadline && (await this.microphone.takenAt().catch(() => null)) === null)
        await sleep(50);
    }
    return true;
  }

  private async mute(): Promise<void> {
    if (!this.micOn) return;
    this.micOn = false;
    if (!(await this.toggle.setMicrophone(false).catch(() => false)))
      this.log.warn('could not mute the microphone after speaking');
  }
}
