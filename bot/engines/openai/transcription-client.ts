import { z } from 'zod';
import { encodeWav } from '../../audio-utils/wav.js';
import type { EngineSettings } from '../engine.js';
import type { OpenAiEngineConfig } from '../engine-configs.js';
import type { EngineLogger } from '../engine-logger.js';
import { AttemptError, withRetries } from './retry.js';

/** verbose_json as OpenAI and the self-hosted look-alikes send it; only what we read is required. */
const verboseTranscription = z.object({
  text: z.string(),
  language: z.string().nullish(),
  segments: z
    .array(z.object({ start: z.coerce.number(), end: z.coerce.number(), text: z.string() }))
    .nullish(),
});
export type VerboseTranscription = z.infer<typeof verboseTranscription>;

export interface TranscriptionRequest {
  samples: Int16Array;
  sampleRate: number;
  /** Sent as a hint when known; ignored for translations, which always produce English. */
  language: string | null;
  task: EngineSettings['task'];
  /** Attempts after the first; 0 for windows a newer one will replace anyway. */
  retries: number;
}

export interface TranscriptionClientOptions {
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Aborts in-flight requests and waits (engine closing). */
  signal: AbortSignal;
}

const SERVER_MESSAGE_CHARS = 300;

export class TranscriptionClient {
  private readonly baseUrl: string;

  constructor(
    private readonly config: OpenAiEngineConfig,
    private readonly options: TranscriptionClientOptions,
    private readonly log: EngineLogger,
  ) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  /** Throws the last AttemptError when every attempt failed. */
  transcribe(request: TranscriptionRequest): Promise<VerboseTranscription> {
    const path = request.task === 'translate' ? '/audio/translations' : '/audio/transcriptions';
    const wav = encodeWav(request.samples, request.sampleRate);
    return withRetries((attempt) => this.attempt(`${this.baseUrl}${path}`, wav, request, attempt), {
      retries: request.retries,
      backoffBaseMs: this.options.backoffBaseMs,
      backoffMaxMs: this.options.backoffMaxMs,
      signal: this.options.signal,
      onRetry: (error, attempt, waitMs) =>
        this.log.warn(
          { err: error, attempt, waitMs: Math.round(waitMs) },
          'transcription request failed; retrying',
        ),
    });
  }

  private async attempt(
    url: string,
    wav: Uint8Array<ArrayBuffer>,
    request: TranscriptionRequest,
    attempt: number,
  ): Promise<VerboseTranscription> {
    const form = new FormData();
    form.append('file', new Blob([wav], { type: 'audio/wav' }), `utterance-${attempt}.wav`);
    form.append('model', this.config.model);
    if (request.language && request.task === 'transcribe') form.append('language', request.language);
    form.append('response_format', 'verbose_json');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;

    const timeout = AbortSignal.timeout(this.config.requestTimeoutMs);
    let response: Response;
    let body: string;
    try {
      response = await fetch(url, {
        method: 'POST',
        body: form,
        headers,
        signal: AbortSignal.any([timeout, this.options.signal]),
      });
      body = await response.text();
    } catch (error) {
      if (this.options.signal.aborted) throw new AttemptError('engine closed', false);
      if (timeout.aborted) {
        throw new AttemptError(`no answer from ${url} within ${this.config.requestTimeoutMs} ms`, true);
      }
      throw new AttemptError(`cannot reach ${url}: ${describeNetworkError(error)}`, true);
    }
    if (!response.ok) {
      const retryable = response.status >= 500 || response.status === 429;
      throw new AttemptError(
        `${url} answered ${response.status}: ${body.slice(0, SERVER_MESSAGE_CHARS)}`,
        retryable,
        retryAfterMs(response.headers.get('retry-after')),
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new AttemptError(`${url} answered with something that is not JSON: ${body.slice(0, 100)}`, false);
    }
    const parsed = verboseTranscription.safeParse(json);
    if (!parsed.success) {
      throw new AttemptError(`${url} answered an unexpected shape: ${parsed.error.message}`, false);
    }
    return parsed.data;
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}
