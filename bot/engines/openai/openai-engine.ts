import {
  type EngineCallbacks,
  type EngineSegment,
  type EngineSettings,
  SAMPLE_RATE,
  type TranscriptionEngine,
} from '../engine.js';
import type { OpenAiEngineConfig } from '../engine-configs.js';
import type { EngineLogger } from '../engine-logger.js';
import { toLanguageCode } from '../../../shared/contract/languages.js';
import { SegmentIds } from '../segment-ids.js';
import { TranscriptionClient, type VerboseTranscription } from './transcription-client.js';
import { UtteranceWindower, type WindowEvent } from './utterance-windower.js';

export interface OpenAiEngineOptions {
  /** First retry wait (doubles per retry). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
}

/** With nothing ever transcribed, this many lost utterances in a row mean the endpoint is unusable. */
const FAILED_FINALS_BEFORE_FATAL = 3;

type AudioJob = Extract<WindowEvent, { kind: 'partial' | 'final' }>;

interface Utterance {
  id: string;
  settings: EngineSettings;
  /** The last partial shown: the utterance must end with a final even if its last request fails. */
  shown: EngineSegment | null;
}

/**
 * Any OpenAI-compatible `/audio/transcriptions` server. Requests go one at a time, in order; a
 * window that a newer window or the final of its utterance has overtaken in the queue is skipped,
 * so a slow server delays words instead of falling further and further behind.
 */
export class OpenAiEngine implements TranscriptionEngine {
  private readonly ids = new SegmentIds('oai');
  private readonly windower: UtteranceWindower;
  private readonly client: TranscriptionClient;
  private readonly closing = new AbortController();
  private readonly utterances = new Map<number, Utterance>();
  private queue: AudioJob[] = [];
  private draining: Promise<void> | null = null;
  private everSucceeded = false;
  private failedFinalsInARow = 0;
  private fatal = false;

  constructor(
    private readonly config: OpenAiEngineConfig,
    private settings: EngineSettings,
    private readonly callbacks: EngineCallbacks,
    private readonly log: EngineLogger,
    options: OpenAiEngineOptions = {},
  ) {
    this.windower = new UtteranceWindower({ sampleRate: SAMPLE_RATE, windowSeconds: config.windowSeconds });
    this.client = new TranscriptionClient(
      config,
      {
        backoffBaseMs: options.backoffBaseMs ?? 500,
        backoffMaxMs: options.backoffMaxMs ?? 10_000,
        signal: this.closing.signal,
      },
      log,
    );
  }

  async start(): Promise<void> {
    if (this.settings.language !== null && toLanguageCode(this.settings.language) === null) {
      throw new Error(`openai engine: '${this.settings.language}' is not a language code`);
    }
    this.log.info({ baseUrl: this.config.baseUrl, model: this.config.model }, 'openai engine ready');
  }

  write(samples: Int16Array): void {
    if (this.closing.signal.aborted || samples.length === 0) return;
    this.handle(this.windower.push(samples));
  }

  reconfigure(settings: Partial<EngineSettings>): void {
    this.settings = { ...this.settings, ...settings };
  }

  async flush(): Promise<void> {
    this.handle(this.windower.end());
    await this.drain();
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.queue = [];
    await this.draining;
  }

  private handle(events: WindowEvent[]): void {
    for (const event of events) {
      if (event.kind === 'open') {
        // Settings are fixed when the utterance starts: a reconfigure applies to later ones.
        this.utterances.set(event.utterance, {
          id: this.ids.create(),
          settings: { ...this.settings },
          shown: null,
        });
      } else {
        this.queue.push(event);
      }
    }
    if (this.queue.length > 0) {
      this.drain().catch((error: Error) =>
        this.log.error({ err: error }, 'openai engine: segment delivery failed'),
      );
    }
  }

  /** One loop at a time, serving the queue until it is empty. */
  private drain(): Promise<void> {
    this.draining ??= this.work();
    return this.draining;
  }

  private async work(): Promise<void> {
    // A microtask later, so a burst of writes is queued as a whole before anything is sent.
    await Promise.resolve();
    try {
      for (;;) {
        const job = this.queue.shift();
        if (!job || this.closing.signal.aborted) {
          // In the same turn as the emptiness check, so a job queued right after starts a new loop.
          this.draining = null;
          return;
        }
        if (job.kind === 'partial' && this.queue.some((later) => later.utterance === job.utterance)) continue;
        await this.transcribe(job);
      }
    } catch (error) {
      this.draining = null;
      throw error;
    }
  }

  private async transcribe(job: AudioJob): Promise<void> {
    const utterance = this.utterances.get(job.utterance);
    if (!utterance) return;
    const { settings } = utterance;
    let result: VerboseTranscription;
    try {
      result = await this.client.transcribe({
        samples: job.samples,
        sampleRate: SAMPLE_RATE,
        language: settings.language,
        task: settings.task,
        // A lost window is replaced by the next one; only the final is worth retrying.
        retries: job.kind === 'final' ? this.config.maxRetries : 0,
      });
    } catch (error) {
      if (this.closing.signal.aborted) return;
      this.failed(job, utterance, error as Error);
      return;
    }
    this.everSucceeded = true;
    if (job.kind === 'final') {
      this.failedFinalsInARow = 0;
      this.utterances.delete(job.utterance);
    }
    const text = result.text.trim();
    if (text === '' && !utterance.shown) return; // noise: nothing to show or to take back
    const segment = this.segment(job, utterance, result, text);
    utterance.shown = segment;
    this.callbacks.onSegment(segment);
  }

  private segment(
    job: AudioJob,
    utterance: Utterance,
    result: VerboseTranscription,
    text: string,
  ): EngineSegment {
    const offset = job.startSample / SAMPLE_RATE;
    const length = (job.endSample - job.startSample) / SAMPLE_RATE;
    const spoken = result.segments?.filter((segment) => segment.text.trim() !== '') ?? [];
    // The server's own timings are tighter than our VAD's; clamp them to the audio we sent.
    const from = spoken.length > 0 ? clamp(spoken[0]!.start, 0, length) : 0;
    const to = spoken.length > 0 ? clamp(spoken[spoken.length - 1]!.end, from, length) : length;
    const { language, task } = utterance.settings;
    return {
      id: utterance.id,
      start: round(offset + from),
      end: round(offset + to),
      text,
      language: task === 'translate' ? 'en' : (toLanguageCode(language) ?? toLanguageCode(result.language)),
      final: job.kind === 'final',
    };
  }

  private failed(job: AudioJob, utterance: Utterance, error: Error): void {
    if (job.kind === 'partial') {
      this.log.warn({ err: error }, 'transcription window failed; the next window replaces it');
      return;
    }
    this.utterances.delete(job.utterance);
    this.log.error(
      { err: error, segmentId: utterance.id, start: job.startSample / SAMPLE_RATE },
      utterance.shown
        ? 'transcription of an utterance failed; its last window stands as final'
        : 'transcription of an utterance failed; its words are lost',
    );
    if (utterance.shown) this.callbacks.onSegment({ ...utterance.shown, final: true });
    this.failedFinalsInARow++;
    if (!this.everSucceeded && this.failedFinalsInARow >= FAILED_FINALS_BEFORE_FATAL && !this.fatal) {
      this.fatal = true;
      this.callbacks.onFatalError(
        new Error(
          `openai engine: every request to ${this.config.baseUrl} failed; last error: ${error.message}`,
        ),
      );
    }
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
