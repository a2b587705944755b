/**
 * How many bots a worker runs at once when BOT_SLOTS is not set: as many as the Docker engine's
 * machine holds in real time, from what one bot in a call costs there. The costs are the measured
 * ones (bench/capacity.ts and bench/bot-footprint.ts, figures in docs/benchmarks.md), rounded up,
 * so a default install never overcommits its machine; BOT_SLOTS overrides them.
 */
export const BOT_COST = {
  /**
   * CPU of one transcribing bot in a meeting as real meetings load it (issue 31: six cameras, a
   * screen share half the time, the client's page weight, three people talking without pause), with
   * its video measures on (the default): 0.84–0.97 core alone in the call on the project's machine
   * on 2026-11-28 (browser, capture, recognizer; that day the machine ran about 20 % slower than the
   * day before). On 2 cores two such bots fell behind in their first minute and three stayed behind
   * (docs/benchmarks.md, "Realistic load", second pass). On audio-only meetings with turns a bot takes
   * 0.25 core and five keep up on 2 cores: set BOT_SLOTS.
   */
  cores: 0.9,
  /** Memory of one bot as `docker stats` shows it under that load: 530–660 MiB, at most 815. */
  memoryMiB: 1024,
} as const;

/** Kept free for the system, the Docker engine and the worker itself. */
export const HOST_RESERVE = { cores: 0.2, memoryMiB: 1024 } as const;

export interface EngineMachine {
  cpus: number;
  memoryBytes: number;
}

/**
 * A worker's bots when they run in a cluster (BOT_RUNTIME=kubernetes): the scheduler places each
 * pod on a node with room, so slots only bound how many bots one worker launches and watches.
 */
export const CLUSTER_WORKER_SLOTS = 100;

export function defaultBotSlots(machine: EngineMachine | undefined): number {
  if (!machine) return CLUSTER_WORKER_SLOTS;
  const byCpu = Math.floor((machine.cpus - HOST_RESERVE.cores) / BOT_COST.cores);
  const byMemory = Math.floor(
    (machine.memoryBytes / 1024 / 1024 - HOST_RESERVE.memoryMiB) / BOT_COST.memoryMiB,
  );
  return Math.max(1, Math.min(byCpu, byMemory));
}
