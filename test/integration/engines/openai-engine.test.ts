import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineSegment, EngineSettings } from '../../../bot/engines/engine.js';
import { OpenAiEngine } from '../../../bot/engines/openai/openai-engine.js';
import { buildTimeline, chunked, type Timeline } from '../../support/speech.js';
import { wordErrorRate } from '../../support/wer.js';
import { startTranscriptionServer, type TranscriptionServer } from './transcription-server.js';

interface LogLine {
  level: number;
  msg: string;
}

function setup(
  baseUrl: string,
  config: { windowSeconds?: number; requestTimeoutMs?: number; maxRetries?: number } = {},
  settings: EngineSettings = { language: null, task: 'transcribe' },
) {
  const segments: EngineSegment[] = [];
  const fatal: Error[] = [];
  const logs: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => logs.push(JSON.parse(line) as LogLine) });
  const engine = new OpenAiEngine(
    {
      engine: 'openai',
      baseUrl,
      apiKey: 'test-key',
      model: 'whisper-test',
      windowSeconds: config.windowSeconds ?? 5,
      requestTimeoutMs: config.requestTimeoutMs ?? 20_000,
      maxRetries: config.maxRetries ?? 3,
    },
    settings,
    { onSegment: (segment) => segments.push(segment), onFatalError: (error) => fatal.push(error) },
    log,
    { backoffBaseMs: 20, backoffMaxMs: 200 },
  );
  return { engine, segments, fatal, logs };
}

/** Capture pace is 100 ms per chunk; a short pause per chunk lets requests overlap the audio as live. */
async function play(engine: OpenAiEngine, samples: Int16Array, pauseMs = 30): Promise<void> {
  for (const chunk of chunked(samples)) {
    engine.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

describe('openai engine against an OpenAI-compatible server', () => {
  let server: TranscriptionServer;
  let engine: OpenAiEngine | null = null;
  let oneUtterance: Timeline;
  let twoUtterances: Timeline;

  beforeAll(async () => {
    oneUtterance = await buildTimeline([
      { silence: 0.5 },
      { say: 'Please send me the report by Friday afternoon.', voice: 'awb' },
      { silence: 1.2 },
    ]);
    twoUtterances = await buildTimeline([
      { silence: 0.5 },
      { say: 'The new office will open in the spring.', voice: 'rms' },
      { silence: 1.2 },
      { say: 'I think the project is going well.', voice: 'rms' },
      { silence: 1.2 },
    ]);
  });

  afterEach(async () => {
    await engine?.close();
    engine = null;
    await server?.close();
  });

  it('re-sends the open utterance as it grows, then sends it once more as final, with one id', async () => {
    server = await startTranscriptionServer();
    const run = setup(server.baseUrl, { windowSeconds: 1 });
    engine = run.engine;
    await engine.start();
    // The speech first, and the silence that closes the utterance only once a window of it has been
    // answered: on a loaded machine the recognizer can take longer than the whole utterance, and the
    // engine rightly skips windows the final has overtaken (then no partial shows at all).
    const speechEnds = Math.round(oneUtterance.utterances[0]!.end * 16_000);
    await play(engine, oneUtterance.samples.subarray(0, speechEnds));
    await expect
      .poll(() => run.segments.filter((segment) => !segment.final).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(1);
    await play(engine, oneUtterance.samples.subarray(speechEnds));
    await engine.flush();

    expect(run.fatal).toEqual([]);
    const partials = run.segments.filter((segment) => !segment.final);
    const finals = run.segments.filter((segment) => segment.final);
    expect(partials.length).toBeGreaterThanOrEqual(1);
    expect(finals).toHaveLength(1);
    expect(run.segments[run.segments.length - 1]).toBe(finals[0]);
    expect(new Set(run.segments.map((segment) => segment.id))).toEqual(new Set([finals[0]!.id]));
    // Each window holds more audio than the one before; the final holds the whole utterance.
    const sent = server.requests.map((request) => request.audioSeconds);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(sent[sent.length - 1]).toBeGreaterThan(sent[0]! + 0.5);

    const final = finals[0]!;
    const wer = wordErrorRate(oneUtterance.script, final.text);
    console.log(
      `openai engine: final "${final.text}" WER ${(wer.rate * 100).toFixed(1)} %, ${sent.length} requests`,
    );
    expect(wer.rate).toBeLessThanOrEqual(0.15);
    expect(final.language).toBe('en'); // the server said "english"
    expect(Math.abs(final.start - oneUtterance.utterances[0]!.start)).toBeLessThanOrEqual(1);
    expect(Math.abs(final.end - oneUtterance.utterances[0]!.end)).toBeLessThanOrEqual(1);

    const first = server.requests[0]!;
    expect(first.path).toBe('/v1/audio/transcriptions');
    expect(first.authorization).toBe('Bearer test-key');
    expect(first.fields).toEqual({ model: 'whisper-test', response_format: 'verbose_json' });
  });

  it('applies a reconfigure to the next utterance: language hint, then translations', async () => {
    server = await startTranscriptionServer();
    const run = setup(server.baseUrl, {}, { language: 'en', task: 'transcribe' });
    engine = run.engine;
    await engine.start();
    const firstEnds = Math.round((twoUtterances.utterances[0]!.end + 0.8) * 16_000);
    engine.write(twoUtterances.samples.subarray(0, firstEnds));
    engine.reconfigure({ task: 'translate' });
    engine.write(twoUtterances.samples.subarray(firstEnds));
    await engine.flush();

    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/audio/transcriptions',
      '/v1/audio/translations',
    ]);
    expect(server.requests[0]!.fields.language).toBe('en');
    expect(server.requests[1]!.fields.language).toBeUndefined();
    expect(run.segments.map((segment) => [segment.final, segment.language])).toEqual([
      [true, 'en'],
      [true, 'en'],
    ]);
    const wer = wordErrorRate(twoUtterances.script, run.segments.map((segment) => segment.text).join(' '));
    expect(wer.rate).toBeLessThanOrEqual(0.15);
  });

  it('retries a final after 5xx answers', async () => {
    server = await startTranscriptionServer();
    server.script({ status: 500 }, { status: 503 });
    const run = setup(server.baseUrl, { maxRetries: 3 });
    engine = run.engine;
    await engine.start();
    engine.write(oneUtterance.samples);
    await engine.flush();

    expect(server.requests.map((request) => request.answered)).toEqual([500, 503, 200]);
    expect(new Set(server.requests.map((request) => request.audioSeconds)).size).toBe(1);
    expect(run.segments).toHaveLength(1);
    expect(run.segments[0]!.final).toBe(true);
    expect(wordErrorRate(oneUtterance.script, run.segments[0]!.text).rate).toBeLessThanOrEqual(0.15);
    expect(run.logs.filter((line) => line.msg.includes('retrying'))).toHaveLength(2);
  });

  it('gives up on a request that times out and succeeds on the retry', async () => {
    server = await startTranscriptionServer();
    // The retry is answered at once: a real recognizer on a loaded machine outlasted the timeout.
    server.script('hang', { text: oneUtterance.script });
    const run = setup(server.baseUrl, { requestTimeoutMs: 4000, maxRetries: 2 });
    engine = run.engine;
    await engine.start();
    engine.write(oneUtterance.samples);
    await engine.flush();

    expect(server.requests.map((request) => request.answered)).toEqual(['aborted', 200]);
    expect(run.segments.map((segment) => segment.final)).toEqual([true]);
    expect(run.logs.some((line) => line.msg.includes('retrying'))).toBe(true);
  });

  it('does not retry a 400, logs the lost utterance and carries on', async () => {
    server = await startTranscriptionServer();
    server.script({ status: 400 });
    const run = setup(server.baseUrl, { maxRetries: 3 });
    engine = run.engine;
    await engine.start();
    engine.write(twoUtterances.samples);
    await engine.flush();

    expect(server.requests.map((request) => request.answered)).toEqual([400, 200]);
    expect(run.fatal).toEqual([]);
    expect(run.segments).toHaveLength(1);
    expect(wordErrorRate(twoUtterances.utterances[1]!.text, run.segments[0]!.text).rate).toBeLessThanOrEqual(
      0.2,
    );
    const errors = run.logs.filter((line) => line.level >= 50);
    expect(errors.map((line) => line.msg)).toEqual([
      'transcription of an utterance failed; its words are lost',
    ]);
  });

  it('reports a fatal error when nothing at all works', async () => {
    server = await startTranscriptionServer();
    const unreachable = server.baseUrl;
    await server.close(); // nothing listens there any more
    const run = setup(unreachable, { maxRetries: 1 });
    engine = run.engine;
    await engine.start();
    const three = await buildTimeline([
      { say: 'Yes.', voice: 'rms' },
      { silence: 1 },
      { say: 'No.', voice: 'rms' },
      { silence: 1 },
      { say: 'Maybe.', voice: 'rms' },
      { silence: 1 },
    ]);
    engine.write(three.samples);
    await engine.flush();
    expect(run.fatal).toHaveLength(1);
    expect(run.fatal[0]!.message).toMatch(
      /every request to .* failed; last error: cannot reach .*ECONNREFUSED/,
    );
    server = await startTranscriptionServer(); // for afterEach
  });
});
