import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmbeddedEngine } from '../../../bot/engines/embedded/embedded-engine.js';
import type { EngineSegment } from '../../../bot/engines/engine.js';
import { silentLogger } from '../../../bot/engines/engine-logger.js';
import { buildTimeline, chunked, silence } from '../../support/speech.js';
import { wordErrorRate } from '../../support/wer.js';

const execFileAsync = promisify(execFile);

async function childPocketsphinxPids(): Promise<number[]> {
  const { stdout } = await execFileAsync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).catch(
    () => ({
      stdout: '',
    }),
  );
  return stdout
    .split('\n')
    .filter((line) => line.includes('pocketsphinx'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** user + system CPU seconds of a live process (clock ticks are 1/100 s on Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

describe('embedded engine (pocketsphinx)', () => {
  let workDir: string;
  let engine: EmbeddedEngine | null = null;

  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'embedded-engine-test-'));
  });

  afterEach(async () => {
    await engine?.close();
    engine = null;
    await rm(workDir, { recursive: true, force: true });
  });

  it('transcribes several speakers as final segments, in order and in place', async () => {
    const timeline = await buildTimeline([
      { silence: 1.2 },
      { say: 'Please send me the report by Friday afternoon.', voice: 'awb' },
      { silence: 1.5 },
      { say: 'The new office will open in the spring.', voice: 'rms' },
      { silence: 1.5 },
      { say: 'We should schedule a meeting with the design team.', voice: 'kal16' },
    ]);
    const segments: EngineSegment[] = [];
    const fatal: Error[] = [];
    engine = new EmbeddedEngine(
      { engine: 'embedded', profile: 'balanced', extraArgs: [] },
      { language: null, task: 'transcribe' },
      { onSegment: (segment) => segments.push(segment), onFatalError: (error) => fatal.push(error) },
      silentLogger(),
      { workDir },
    );
    await engine.start();
    const [pid] = await childPocketsphinxPids();
    expect(pid).toBeDefined();
    const cpuAfterLoad = await cpuSeconds(pid!);

    for (const chunk of chunked(timeline.samples)) engine.write(chunk);
    // Streaming: the first two utterances come out without a flush.
    await vi.waitFor(() => expect(segments.length).toBeGreaterThanOrEqual(2), { timeout: 30_000 });
    // Trailing silence ends the last utterance too; then the CPU figure covers all the audio.
    const tail = silence(1.5);
    engine.write(tail);
    await vi.waitFor(() => expect(segments.length).toBe(3), { timeout: 30_000 });
    const audioSeconds = timeline.duration + tail.length / 16_000;
    const cpuPerAudioSecond = ((await cpuSeconds(pid!)) - cpuAfterLoad) / audioSeconds;
    await engine.flush();

    const hypothesis = segments.map((segment) => segment.text).join(' ');
    const wer = wordErrorRate(timeline.script, hypothesis);
    console.log(
      `embedded engine: WER ${(wer.rate * 100).toFixed(1)} % (${wer.substitutions} sub, ${wer.deletions} del, ` +
        `${wer.insertions} ins of ${wer.referenceWords} words); CPU ${cpuPerAudioSecond.toFixed(3)} s per s of audio ` +
        `(${cpuAfterLoad.toFixed(2)} s to load the model)\n  script:     ${timeline.script}\n  recognized: ${hypothesis}`,
    );
    expect(fatal).toEqual([]);
    expect(wer.rate).toBeLessThanOrEqual(0.15);
    expect(segments.every((segment) => segment.final && segment.language === 'en')).toBe(true);
    expect(new Set(segments.map((segment) => segment.id)).size).toBe(3);
    segments.forEach((segment, index) => {
      const placed = timeline.utterances[index]!;
      expect(Math.abs(segment.start - placed.start)).toBeLessThanOrEqual(1);
      expect(Math.abs(segment.end - placed.end)).toBeLessThanOrEqual(1);
      expect(wordErrorRate(placed.text, segment.text).rate).toBeLessThan(0.5);
    });
  });

  it('gets the last utterance out on flush, carries on after it, and leaves no process or FIFO after close', async () => {
    const timeline = await buildTimeline([
      { silence: 0.8 },
      { say: 'I think the project is going well.', voice: 'rms' },
    ]);
    const segments: EngineSegment[] = [];
    engine = new EmbeddedEngine(
      { engine: 'embedded', profile: 'balanced', extraArgs: [] },
      { language: 'en', task: 'transcribe' },
      { onSegment: (segment) => segments.push(segment), onFatalError: (error) => expect.fail(error.message) },
      silentLogger(),
      { workDir },
    );
    await engine.start();
    expect(await readdir(workDir)).toHaveLength(1);
    // No trailing silence: only the end of the input can end this utterance.
    for (const chunk of chunked(timeline.samples)) engine.write(chunk);
    await engine.flush();
    expect(segments).toHaveLength(1);
    expect(wordErrorRate(timeline.script, segments[0]!.text).rate).toBeLessThanOrEqual(0.15);
    expect(Math.abs(segments[0]!.start - timeline.utterances[0]!.start)).toBeLessThanOrEqual(1);

    // Audio after a flush goes to a fresh recognizer, on the same clock.
    const later = await buildTimeline([
      { silence: 1 },
      { say: 'The new office will open in the spring.', voice: 'awb' },
    ]);
    for (const chunk of chunked(later.samples)) engine.write(chunk);
    await engine.flush();
    expect(segments).toHaveLength(2);
    expect(wordErrorRate(later.script, segments[1]!.text).rate).toBeLessThanOrEqual(0.15);
    const placed = timeline.samples.length / 16_000 + later.utterances[0]!.start;
    expect(Math.abs(segments[1]!.start - placed)).toBeLessThanOrEqual(1);
    expect(segments[1]!.id).not.toBe(segments[0]!.id);

    await engine.close();
    engine = null;
    expect(await childPocketsphinxPids()).toEqual([]);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('a recognizer starved of CPU stops taking audio past its backlog limit, says what it dropped, and hands later audio to a fresh recognizer at its own times', async () => {
    const first = await buildTimeline([
      { silence: 0.8 },
      { say: 'Please send me the report by Friday afternoon.', voice: 'awb' },
      { silence: 1 },
    ]);
    const later = await buildTimeline([
      { silence: 1 },
      { say: 'The new office will open in the spring.', voice: 'rms' },
      { silence: 1.5 },
    ]);
    const segments: EngineSegment[] = [];
    const dropped: Array<[number, number]> = [];
    engine = new EmbeddedEngine(
      { engine: 'embedded', profile: 'balanced', extraArgs: [] },
      { language: 'en', task: 'transcribe' },
      {
        onSegment: (segment) => segments.push(segment),
        onFatalError: (error) => expect.fail(error.message),
        onAudioDropped: (start, end) => dropped.push([start, end]),
      },
      silentLogger(),
      { workDir, maxBacklogSeconds: 4 },
    );
    await engine.start();
    for (const chunk of chunked(first.samples)) engine.write(chunk);
    await vi.waitFor(() => expect(segments).toHaveLength(1), { timeout: 20_000 });
    const [pid] = await childPocketsphinxPids();
    expect(pid).toBeDefined();

    // The recognizer gets no CPU: its FIFO fills, then the engine's own queue, up to the limit.
    process.kill(pid!, 'SIGSTOP');
    let written = first.samples.length;
    try {
      const stretch = silence(30);
      for (const chunk of chunked(stretch)) {
        engine.write(chunk);
        written += chunk.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(engine.backlogSeconds()).toBeGreaterThan(2);
      expect(engine.backlogSeconds()).toBeLessThanOrEqual(4.2);
    } finally {
      process.kill(pid!, 'SIGCONT');
    }
    // Once it has worked the backlog down, it hears the next words, at their own times.
    await vi.waitFor(() => expect(engine!.backlogSeconds()).toBeLessThan(2), { timeout: 20_000 });
    // The stretch is over once the backlog is worked off: it is reported then, without waiting for audio.
    expect(dropped).toHaveLength(0);
    engine.settleDroppedAudio();
    expect(dropped).toHaveLength(1);
    const laterStart = written / 16_000;
    for (const chunk of chunked(later.samples)) engine.write(chunk);
    await engine.flush();

    expect(dropped.length).toBeGreaterThanOrEqual(1);
    const droppedSeconds = dropped.reduce((sum, [start, end]) => sum + (end - start), 0);
    // 30 s written into at most 4 s of queue and 64 KiB (2 s) of FIFO: the rest was dropped and said so.
    expect(droppedSeconds).toBeGreaterThan(20);
    for (const [start, end] of dropped) {
      expect(start).toBeGreaterThanOrEqual(first.samples.length / 16_000);
      expect(end).toBeLessThanOrEqual(laterStart + 0.01);
    }
    expect(segments).toHaveLength(2);
    for (const segment of segments) {
      for (const [start, end] of dropped) expect(segment.end <= start || segment.start >= end).toBe(true);
    }
    expect(wordErrorRate(later.script, segments[1]!.text).rate).toBeLessThanOrEqual(0.3);
    expect(Math.abs(segments[1]!.start - (laterStart + later.utterances[0]!.start))).toBeLessThanOrEqual(0.5);
  });

  it('refuses a language other than English at start, saying why', async () => {
    engine = new EmbeddedEngine(
      { engine: 'embedded', profile: 'balanced', extraArgs: [] },
      { language: 'de', task: 'transcribe' },
      { onSegment: () => {}, onFatalError: () => {} },
      silentLogger(),
      { workDir },
    );
    await expect(engine.start()).rejects.toThrow(/embedded engine.*only supports English.*'de'/);
    expect(await childPocketsphinxPids()).toEqual([]);
  });

  it('fails start clearly when pocketsphinx rejects its arguments', async () => {
    engine = new EmbeddedEngine(
      { engine: 'embedded', profile: 'balanced', extraArgs: ['-no_such_flag', '1'] },
      { language: null, task: 'transcribe' },
      { onSegment: () => {}, onFatalError: () => {} },
      silentLogger(),
      { workDir },
    );
    await expect(engine.start()).rejects.toThrow(/pocketsphinx failed to start.*no_such_flag/);
    expect(await readdir(workDir)).toEqual([]);
  });
});
