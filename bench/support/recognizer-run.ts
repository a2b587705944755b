import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import { EmbeddedEngine } from '../../bot/engines/embedded/embedded-engine.js';
import type { EngineSegment } from '../../bot/engines/engine.js';
import { type EngineLogger, silentLogger } from '../../bot/engines/engine-logger.js';
import type { EmbeddedProfile } from '../../shared/contract/bot-config.js';
import { CORPUS_SAMPLE_RATE, type SpeechSet } from './speech-corpus.js';

/** The bot's capture hands the engine 200 ms at a time. */
const CHUNK_SAMPLES = CORPUS_SAMPLE_RATE / 5;
/** Before the first clip, between clips and after the last: a pause, as between speakers in a call. */
const LEAD_SECONDS = 1;
const GAP_SECONDS = 0.8;
const TAIL_SECONDS = 1.5;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux
/** How far ahead of the recognizer the feed may run: well under the engine's drop limit. */
const MAX_AHEAD_BYTES = 5 * CORPUS_SAMPLE_RATE * 2;

export interface RecognizerSetting {
  label: string;
  profile: EmbeddedProfile;
  /** Replaces the profile's flags when non-empty, as the engine config's extraArgs do. */
  extraArgs: string[];
}

export interface RunResult {
  hypothesis: string;
  /** Seconds of the set's clips (the pauses between them not counted). */
  speechSeconds: number;
  /** The recognizer's user + system CPU after its model had loaded. */
  cpuSeconds: number;
  /** What loading the model cost (not in cpuSeconds). */
  loadCpuSeconds: number;
}

/** user + system ticks of one process, from /proc/<pid>/stat. */
function processTicks(pid: number | 'self', children = false): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime are fields 14 and 15 of stat(5); cutime, cstime (reaped children) 16 and 17.
  return children ? Number(fields[13]) + Number(fields[14]) : Number(fields[11]) + Number(fields[12]);
}

/** Bytes a process has read so far (0 once it has gone). */
function bytesRead(pid: number): number {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** This process's pocketsphinx children (the engine runs one at a time). */
function recognizerPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && comm.startsWith('pocketsphinx')) pids.push(Number(entry));
    } catch {
      // it ended between the listing and the read
    }
  }
  return pids;
}

/**
 * Runs the bot's embedded engine (its VAD gate, its recognizer process and flags) over a set, fed in
 * 200 ms chunks as fast as the recognizer takes them. CPU: the recognizer's ticks when its model had loaded (read
 * from its /proc/<pid>/stat), and its total once it exited and was reaped (this process's cutime +
 * cstime grow by exactly that), so what the audio cost is the difference.
 */
export async function recognizeSet(
  set: SpeechSet,
  setting: RecognizerSetting,
  dictionary: string | undefined,
): Promise<RunResult> {
  const segments: EngineSegment[] = [];
  let fatal: Error | null = null;
  const problems: string[] = [];
  const engine = new EmbeddedEngine(
    { engine: 'embedded', profile: setting.profile, extraArgs: setting.extraArgs },
    { language: 'en', task: 'transcribe' },
    { onSegment: (segment) => segments.push(segment), onFatalError: (error) => (fatal = error) },
    {
      ...silentLogger(),
      // A recognizer that died mid-set would quietly drop words from the figures.
      error: (object: unknown, message?: string) =>
        problems.push(`${message ?? ''} ${JSON.stringify(object)}`),
    } as EngineLogger,
    dictionary ? { dictionary } : {},
  );
  if (recognizerPids().length > 0) throw new Error('a pocketsphinx child is already running');
  const reapedBefore = processTicks('self', true);
  await engine.start();
  const [pid, ...others] = recognizerPids();
  if (pid === undefined || others.length > 0) throw new Error('expected exactly one pocketsphinx child');
  const loadTicks = processTicks(pid);

  // Paced by what the recognizer has read from its FIFO (/proc/<pid>/io rchar, the model having been
  // read before it opened the FIFO), so it is never far behind: the engine drops audio for a
  // recognizer that is, as it should in a call.
  const readAtReady = bytesRead(pid);
  let fedBytes = 0;
  let speechSamples = 0;
  const feed = async (samples: Int16Array) => {
    for (let offset = 0; offset < samples.length; offset += CHUNK_SAMPLES) {
      const chunk = samples.subarray(offset, offset + CHUNK_SAMPLES);
      while (fedBytes - (bytesRead(pid) - readAtReady) > MAX_AHEAD_BYTES) await sleep(20);
      engine.write(chunk);
      fedBytes += chunk.length * 2;
      await yieldToLoop();
    }
  };
  await feed(new Int16Array(LEAD_SECONDS * CORPUS_SAMPLE_RATE));
  for (const utterance of set.utterances) {
    await feed(utterance.samples);
    speechSamples += utterance.samples.length;
    await feed(new Int16Array(Math.round(GAP_SECONDS * CORPUS_SAMPLE_RATE)));
  }
  await feed(new Int16Array(TAIL_SECONDS * CORPUS_SAMPLE_RATE));
  await engine.flush();
  await engine.close();
  if (fatal) throw fatal;
  if (problems.length > 0)
    throw new Error(`the recognizer failed during set ${set.name}: ${problems.join('; ')}`);
  const totalTicks = processTicks('self', true) - reapedBefore;
  return {
    hypothesis: segments.map((segment) => segment.text).join(' '),
    speechSeconds: speechSamples / CORPUS_SAMPLE_RATE,
    cpuSeconds: (totalTicks - loadTicks) / TICKS_PER_SECOND,
    loadCpuSeconds: loadTicks / TICKS_PER_SECOND,
  };
}
