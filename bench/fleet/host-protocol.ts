/**
 * What the simulated runtime (in a worker process, simulated-runtime.ts) and its bot host (the
 * process that plays the container engine, bot-host-process.ts) say to each other over the IPC
 * channel of child_process.fork. The worker's own code only ever sees the BotRuntime interface.
 */

/** How the simulated bots behave (the driver's options), handed to every host in FLEET_BOT_BEHAVIOUR. */
export interface BotBehaviour {
  /** A non-final revision of the open segment this often while someone talks (ms). */
  revisionMs: number;
  /** How fast the simulated people talk: an utterance of n words lasts n / wordsPerSecond seconds. */
  wordsPerSecond: number;
  /** The pause between two utterances, drawn between these (ms). */
  pauseMs: [number, number];
  /**
   * Run the live audio publisher as every real bot does (a 200 ms chunk of 16 kHz PCM, five a
   * second): it appends only while someone listens, and nobody listens in the fleet, so each bot
   * asks Redis once a second (EXISTS) and appends nothing.
   */
  audio: boolean;
  /** Bytes of encoded audio per 5 s recording chunk (the real recorder's chunk period). */
  recordingChunkBytes: number;
  /** The meeting ends on its own (completed, meeting_ended) this long after the bot is in the call; 0: never. */
  meetingSeconds: number;
  /** From `joining` to `awaiting_admission`, and from there to `active` (ms, each drawn up to twice as long). */
  lobbyMs: number;
  admissionMs: number;
}

export const DEFAULT_BEHAVIOUR: BotBehaviour = {
  revisionMs: 1500,
  wordsPerSecond: 2.5,
  pauseMs: [300, 1500],
  audio: true,
  // 24 kbit/s Opus of unbroken speech is 15,000 bytes per 5 s; meetings have pauses (docs/benchmarks.md:
  // 62–77 KiB a minute with a voice every 8–15 s, 176 KiB at most).
  recordingChunkBytes: 12_000,
  meetingSeconds: 0,
  lobbyMs: 1500,
  admissionMs: 1500,
};

export const BEHAVIOUR_ENV = 'FLEET_BOT_BEHAVIOUR';
/** Where the host writes its counters (JSON, every few seconds and at exit). */
export const STATS_FILE_ENV = 'FLEET_STATS_FILE';

/** A file put into a container before it starts (BotContainerSpec.files), its content base64. */
export interface WireFile {
  directory: string;
  name: string;
  content: string;
}

export type ToHost =
  | { type: 'start'; id: string; name: string; env: Record<string, string>; files: WireFile[] }
  /** SIGTERM: the bot leaves as on a stop (completed, stopped); SIGKILL: gone at once, exit 137. */
  | { type: 'signal'; id: string; signal: 'SIGTERM' | 'SIGKILL' };

export type FromHost =
  | { type: 'ready'; pid: number }
  | { type: 'started'; id: string }
  | { type: 'exited'; id: string; exitCode: number; logTail: string[] }
  /** Every few seconds: what the whole host uses, for the runtime's usage(). */
  | { type: 'usage'; rssBytes: number; cpuMicros: number; bots: number };

/** The host's counters, as written to its stats file. */
export interface HostStats {
  workerId: string;
  pid: number;
  at: number;
  running: number;
  started: number;
  exited: Record<string, number>;
  active: number;
  events: number;
  segmentsFinal: number;
  segmentsPartial: number;
  participants: number;
  recordingChunks: number;
  audioChunks: number;
  audioDropped: number;
  audioFailed: number;
  /** Appends the outbox gave up on (after ioredis' own retries). */
  appendFailures: number;
  /** Redis connection errors the bots' clients reported. */
  redisErrors: number;
  lastRedisError: string | null;
  /** Segment publish → XADD acknowledged, ms: the simulated bot's own share of the commit latency. */
  segmentAppendMs: { count: number; p50: number; p95: number; p99: number; max: number };
}
