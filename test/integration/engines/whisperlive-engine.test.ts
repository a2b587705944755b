import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineSegment, EngineSettings } from '../../../bot/engines/engine.js';
import { silentLogger } from '../../../bot/engines/engine-logger.js';
import { WhisperLiveEngine } from '../../../bot/engines/whisperlive/whisperlive-engine.js';
import { buildTimeline, chunked, type Timeline } from '../../support/speech.js';
import { wordErrorRate } from '../../support/wer.js';
import { startWhisperLiveServer, type WhisperLiveTestServer } from './whisperlive-server.js';

function setup(url: string, settings: EngineSettings = { language: null, task: 'transcribe' }) {
  const segments: EngineSegment[] = [];
  const fatal: Error[] = [];
  const engine = new WhisperLiveEngine(
    { engine: 'whisperlive', url, model: 'small', useVad: true },
    settings,
    { onSegment: (segment) => segments.push(segment), onFatalError: (error) => fatal.push(error) },
    silentLogger(),
    { readyTimeoutMs: 5000, finishTimeoutMs: 20_000 },
  );
  return { engine, segments, fatal };
}

/** The last version of each segment, in the order the segments first appeared. */
function latest(segments: EngineSegment[]): EngineSegment[] {
  const byId = new Map<string, EngineSegment>();
  for (const segment of segments) byId.set(segment.id, segment);
  return [...byId.values()];
}

async function play(engine: WhisperLiveEngine, samples: Int16Array): Promise<void> {
  for (const chunk of chunked(samples)) {
    engine.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('whisperlive engine against a WhisperLive-compatible server', () => {
  let server: WhisperLiveTestServer | null = null;
  let engine: WhisperLiveEngine | null = null;
  let timeline: Timeline;

  beforeAll(async () => {
    timeline = await buildTimeline([
      { silence: 0.6 },
      { say: 'The new office will open in the spring.', voice: 'rms' },
      { silence: 1.5 },
      { say: 'Please send me the report by Friday afternoon.', voice: 'awb' },
      { silence: 1.5 },
    ]);
  });

  afterEach(async () => {
    await engine?.close();
    engine = null;
    await server?.close();
    server = null;
  });

  it('streams Float32 audio and turns the server segments into ours, one id each, final when completed', async () => {
    server = await startWhisperLiveServer();
    const run = setup(server.url);
    engine = run.engine;
    await engine.start();
    await play(engine, timeline.samples);
    await engine.flush();

    expect(run.fatal).toEqual([]);
    const [session] = server.sessions;
    expect(server.sessions).toHaveLength(1);
    expect(session!.config).toEqual({
      uid: expect.any(String),
      language: null,
      task: 'transcribe',
      model: 'small',
      use_vad: true,
    });
    expect(session!.samples).toBe(timeline.samples.length);
    expect(session!.endOfAudio).toBe(true);

    const results = latest(run.segments);
    expect(results).toHaveLength(2);
    expect(results.every((segment) => segment.final && segment.language === 'en')).toBe(true);
    // In progress first, then the same id completed; nothing re-sent after final.
    for (const result of results) {
      const versions = run.segments.filter((segment) => segment.id === result.id);
      expect(versions.filter((segment) => segment.final)).toHaveLength(1);
      expect(versions[versions.length - 1]!.final).toBe(true);
    }
    expect(run.segments.some((segment) => !segment.final)).toBe(true);

    const wer = wordErrorRate(timeline.script, results.map((segment) => segment.text).join(' '));
    console.log(
      `whisperlive engine: WER ${(wer.rate * 100).toFixed(1)} %: ${results.map((s) => s.text).join(' | ')}`,
    );
    expect(wer.rate).toBeLessThanOrEqual(0.15);
    results.forEach((segment, index) => {
      const placed = timeline.utterances[index]!;
      expect(Math.abs(segment.start - placed.start)).toBeLessThanOrEqual(1);
      expect(Math.abs(segment.end - placed.end)).toBeLessThanOrEqual(1);
    });
  });

  it('opens a new connection with the new settings on reconfigure, keeping the sample clock', async () => {
    server = await startWhisperLiveServer();
    const run = setup(server.url, { language: 'en', task: 'transcribe' });
    engine = run.engine;
    await engine.start();
    const split = Math.round((timeline.utterances[0]!.end + 1) * 16_000);
    await play(engine, timeline.samples.subarray(0, split));
    engine.reconfigure({ language: 'fr' });
    await play(engine, timeline.samples.subarray(split));
    await engine.flush();

    expect(server.sessions.map((session) => session.config.language)).toEqual(['en', 'fr']);
    expect(server.sessions.map((session) => session.endOfAudio)).toEqual([true, true]);
    expect(server.sessions[0]!.samples + server.sessions[1]!.samples).toBe(timeline.samples.length);
    const results = latest(run.segments);
    expect(results.map((segment) => [segment.language, segment.final])).toEqual([
      ['en', true],
      ['fr', true],
    ]);
    // The second connection's clock starts at the split; segment times stay on the capture clock.
    expect(Math.abs(results[1]!.start - timeline.utterances[1]!.start)).toBeLessThanOrEqual(1);
    expect(wordErrorRate(timeline.utterances[1]!.text, results[1]!.text).rate).toBeLessThanOrEqual(0.2);
  });

  it('reconnects with the next audio when the server hangs up, keeping the sample clock', async () => {
    const hangUpAt = timeline.utterances[0]!.end + 0.5;
    server = await startWhisperLiveServer({ disconnectAfterSeconds: hangUpAt });
    const run = setup(server.url);
    engine = run.engine;
    await engine.start();
    const split = Math.round((hangUpAt + 0.5) * 16_000);
    await play(engine, timeline.samples.subarray(0, split));
    await expect.poll(() => server!.sessions[0]!.closed, { timeout: 20_000 }).toBe(true);
    await play(engine, timeline.samples.subarray(split));
    await engine.flush();

    expect(run.fatal).toEqual([]);
    expect(server.sessions).toHaveLength(2);
    expect(server.sessions[0]!.endOfAudio).toBe(false);
    expect(server.sessions[1]!.endOfAudio).toBe(true);
    const results = latest(run.segments);
    expect(results.every((segment) => segment.final)).toBe(true);
    const wer = wordErrorRate(timeline.script, results.map((segment) => segment.text).join(' '));
    expect(wer.rate).toBeLessThanOrEqual(0.15);
    const second = results[results.length - 1]!;
    expect(Math.abs(second.start - timeline.utterances[1]!.start)).toBeLessThanOrEqual(1);
  });

  it('fails start with the server’s reason when it is full or refuses', async () => {
    server = await startWhisperLiveServer({ refuse: 'WAIT' });
    engine = setup(server.url).engine;
    await expect(engine.start()).rejects.toThrow(/server is full/);
    await server.close();

    server = await startWhisperLiveServer({ refuse: 'ERROR' });
    engine = setup(server.url).engine;
    await expect(engine.start()).rejects.toThrow(/refused: model not found/);
  });

  it('fails start when nothing listens', async () => {
    const gone = await startWhisperLiveServer();
    const url = gone.url;
    await gone.close();
    engine = setup(url).engine;
    await expect(engine.start()).rejects.toThrow(/ECONNREFUSED/);
  });

  it('closes its connection on close', async () => {
    server = await startWhisperLiveServer();
    engine = setup(server.url).engine;
    await engine.start();
    engine.write(timeline.samples.subarray(0, 16_000));
    await engine.close();
    engine = null;
    await expect.poll(() => server!.sessions[0]?.closed).toBe(true);
  });
});
