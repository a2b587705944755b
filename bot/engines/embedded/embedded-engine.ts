import { existsSync } from 'node:fs';
import { EnergyVad } from '../../audio-utils/energy-vad.js';
import { concatInt16, int16ToLittleEndianBytes } from '../../audio-utils/pcm.js';
import {
  type EngineCallbacks,
  type EngineSettings,
  SAMPLE_RATE,
  type TranscriptionEngine,
} from '../engine.js';
import type { EmbeddedEngineConfig } from '../engine-configs.js';
import type { EngineLogger } from '../engine-logger.js';
import { isEnglish } from '../../../shared/contract/languages.js';
import { SegmentIds } from '../segment-ids.js';
import { LM_WORDS_DICTIONARY } from './lm-dictionary.js';
import type { RecognizedUtterance } from './pocketsphinx-output.js';
import { PocketsphinxProcess } from './pocketsphinx-process.js';
import { recognizerArgs } from './recognizer-profiles.js';

export interface EmbeddedEngineOptions {
  binary?: string;
  /** Directory for the recognizer's FIFO (the OS temp dir by default). */
  workDir?: string;
  startTimeoutMs?: number;
  /** Pronunciation dictionary (the image's pruned one, LM_WORDS_DICTIONARY, when it exists). */
  dictionary?: string;
  /**
   * A recognizer this far behind (seconds of audio queued for it) gets no more audio until it has
   * worked half of it off; what it misses meanwhile is reported through onAudioDropped.
   */
  maxBacklogSeconds?: number;
}

/**
 * The recognizer misreads the first utterance after a stretch of leading silence (its noise
 * estimate and cepstral mean start from the silence), so each recognizer's input begins just
 * before the first speech instead; its clock is then offset by what was skipped.
 */
const PRE_ROLL_SAMPLES = Math.round(0.3 * SAMPLE_RATE);
const MAX_UNEXPECTED_EXITS = 3;
const DEFAULT_MAX_BACKLOG_SECONDS = 30;

/** A recognizer and where its clock's zero sits on the engine's sample clock. */
interface Session {
  process: Promise<PocketsphinxProcess>;
  /** Set once the process runs, to read its backlog without waiting. */
  recognizer: PocketsphinxProcess | null;
  /** null until the first audio is fed. */
  origin: number | null;
}

/** A stretch of audio being dropped, in engine samples. */
interface DropRun {
  start: number;
  end: number;
}

export class EmbeddedEngine implements TranscriptionEngine {
  private readonly ids = new SegmentIds('emb');
  /** The recognizer's arguments besides -infile. */
  readonly args: readonly string[];
  private session: Session | null = null;
  private samplesWritten = 0;
  /** Audio held back while waiting for the first speech of a session. */
  private held: Int16Array[] = [];
  private heldStart = 0;
  private gate = new EnergyVad();
  private unexpectedExits = 0;
  private closed = false;
  private dropping: DropRun | null = null;
  private readonly maxBacklogSeconds: number;
  /** Recognizers ended at a gap, still working through what they were given. */
  private readonly retiring = new Set<Session>();

  constructor(
    config: EmbeddedEngineConfig,
    private settings: EngineSettings,
    private readonly callbacks: EngineCallbacks,
    private readonly log: EngineLogger,
    private readonly options: EmbeddedEngineOptions = {},
  ) {
    const tuning = recognizerArgs(config.profile, config.extraArgs);
    const dictionaryFile =
      options.dictionary ?? (existsSync(LM_WORDS_DICTIONARY) ? LM_WORDS_DICTIONARY : undefined);
    const dictionary = !tuning.includes('-dict') && dictionaryFile ? ['-dict', dictionaryFile] : [];
    this.args = ['-time', 'yes', ...dictionary, ...tuning];
    this.maxBacklogSeconds = options.maxBacklogSeconds ?? DEFAULT_MAX_BACKLOG_SECONDS;
  }

  backlogSeconds(): number {
    let queued = this.session?.recognizer?.queuedBytes() ?? 0;
    for (const session of this.retiring) queued += session.recognizer?.queuedBytes() ?? 0;
    return queued / 2 / SAMPLE_RATE;
  }

  settleDroppedAudio(): void {
    if (this.dropping && !this.tooFarBehind()) this.endDropping({ retire: true });
  }

  async start(): Promise<void> {
    if (!isEnglish(this.settings.language)) {
      throw new Error(
        `The embedded engine (pocketsphinx) only supports English, but language '${this.settings.language}' ` +
          'was requested. Ask for English (or no language), or use the openai or whisperlive engine.',
      );
    }
    if (this.settings.task === 'translate') {
      this.log.info('embedded engine: translating English to English is transcribing');
    }
    await this.openSession().process;
  }

  write(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    const position = this.samplesWritten;
    this.samplesWritten += samples.length;
    if (this.session?.origin != null) {
      if (this.tooFarBehind()) {
        this.dropping ??= { start: position, end: position };
        this.dropping.end = position + samples.length;
        return;
      }
      this.endDropping({ retire: true });
    }
    if (this.session?.origin != null) {
      this.feed(this.session, samples);
      return;
    }
    this.holdUntilSpeech(samples, position);
  }

  reconfigure(settings: Partial<EngineSettings>): void {
    const next = { ...this.settings, ...settings };
    if (!isEnglish(next.language)) {
      this.log.warn(
        { language: next.language },
        'embedded engine only supports English; the language change is ignored and it keeps transcribing English',
      );
      next.language = this.settings.language;
    }
    this.settings = next;
  }

  async flush(): Promise<void> {
    this.endDropping({ retire: false });
    const finishing = [...this.retiring].map((retired) => this.finish(retired));
    // Nothing to finish when nothing was fed since the last flush.
    if (this.session?.origin != null) finishing.push(this.retire(this.session));
    await Promise.all(finishing);
  }

  async close(): Promise<void> {
    this.endDropping({ retire: false });
    this.closed = true;
    const sessions = [...this.retiring];
    if (this.session) sessions.push(this.session);
    this.session = null;
    this.retiring.clear();
    this.held = [];
    await Promise.all(
      sessions.map(async (session) => {
        const recognizer = await session.process.catch(() => null);
        await recognizer?.kill();
      }),
    );
  }

  /** The current recognizer gets no more audio (the next goes to a fresh one) and finishes. */
  private retire(session: Session): Promise<void> {
    this.session = null;
    this.resetGate();
    this.retiring.add(session);
    return this.finish(session);
  }

  /** Ends a recognizer's input; resolves once it printed its last utterance and exited. */
  private async finish(session: Session): Promise<void> {
    try {
      const recognizer = await session.process;
      await recognizer.finish();
    } finally {
      this.retiring.delete(session);
    }
  }

  private holdUntilSpeech(samples: Int16Array, position: number): void {
    if (this.held.length === 0) this.heldStart = position;
    this.held.push(samples);
    const speech = this.gate.push(samples).find((event) => event.type === 'speechStart');
    if (!speech) {
      this.trimHeld();
      return;
    }
    const audio = concatInt16(this.held);
    const from = Math.max(0, speech.sample - PRE_ROLL_SAMPLES - this.heldStart);
    this.held = [];
    const session = this.session ?? this.openSession();
    session.origin = this.heldStart + from;
    this.feed(session, audio.subarray(from));
  }

  /** Only the pre-roll before a possible speech start is worth keeping. */
  private trimHeld(): void {
    const keep = PRE_ROLL_SAMPLES + this.gate.options.sampleRate; // pre-roll + VAD look-behind, generously
    let total = 0;
    for (const part of this.held) total += part.length;
    while (this.held.length > 1 && total - this.held[0]!.length >= keep) {
      const dropped = this.held.shift()!;
      total -= dropped.length;
      this.heldStart += dropped.length;
    }
  }

  private resetGate(): void {
    this.gate = new EnergyVad();
    this.held = [];
  }

  /** Past the limit, or still above half of it while already dropping. */
  private tooFarBehind(): boolean {
    const backlog = this.backlogSeconds();
    return this.dropping ? backlog > this.maxBacklogSeconds / 2 : backlog > this.maxBacklogSeconds;
  }

  /**
   * Reports the stretch just dropped. With `retire`, the recognizer that was too slow finishes what it
   * was given (its utterances keep their times) and the audio after the gap goes to a fresh one, so
   * no utterance spans the gap.
   */
  private endDropping({ retire }: { retire: boolean }): void {
    const run = this.dropping;
    if (!run) return;
    this.dropping = null;
    if (retire && this.session) {
      this.retire(this.session).catch((error: unknown) =>
        this.log.warn({ err: error }, 'embedded engine: a recognizer ended at a gap failed to finish'),
      );
    }
    this.log.warn(
      { droppedSeconds: (run.end - run.start) / SAMPLE_RATE, backlogSeconds: this.backlogSeconds() },
      'embedded engine: the recognizer fell too far behind; audio dropped',
    );
    this.callbacks.onAudioDropped?.(round(run.start / SAMPLE_RATE), round(run.end / SAMPLE_RATE));
  }

  private feed(session: Session, samples: Int16Array): void {
    const bytes = int16ToLittleEndianBytes(samples);
    session.process.then(
      (recognizer) => recognizer.write(bytes),
      () => {},
    );
  }

  private openSession(): Session {
    const isFirst = this.session === null && this.samplesWritten === 0;
    const session: Session = {
      origin: null,
      recognizer: null,
      process: PocketsphinxProcess.start({
        binary: this.options.binary ?? 'pocketsphinx_continuous',
        args: this.args,
        workDir: this.options.workDir,
        startTimeoutMs: this.options.startTimeoutMs ?? 30_000,
        onUtterance: (utterance) => this.emit(session, utterance),
        onUnexpectedExit: (error) => this.lost(session, error),
      }),
    };
    session.process.then(
      (recognizer) => {
        session.recognizer = recognizer;
      },
      () => {},
    );
    session.process.catch((error: Error) => {
      // start() reports the first launch's failure itself; a relaunch's has nobody else to tell.
      if (!isFirst && !this.closed) this.callbacks.onFatalError(error);
    });
    this.session = session;
    return session;
  }

  private emit(session: Session, utterance: RecognizedUtterance): void {
    const origin = (session.origin ?? 0) / SAMPLE_RATE;
    this.callbacks.onSegment({
      id: this.ids.create(),
      start: round(origin + utterance.start),
      end: round(origin + utterance.end),
      text: utterance.text,
      language: 'en',
      final: true,
    });
  }

  /** A crashed recognizer is replaced on the next write; repeated crashes end the engine. */
  private lost(session: Session, error: Error): void {
    if (this.session !== session) return;
    this.endDropping({ retire: false });
    this.session = null;
    this.resetGate();
    this.unexpectedExits++;
    this.log.error({ err: error, exits: this.unexpectedExits }, 'pocketsphinx exited unexpectedly');
    if (this.unexpectedExits >= MAX_UNEXPECTED_EXITS) this.callbacks.onFatalError(error);
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
