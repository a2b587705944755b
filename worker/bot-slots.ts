/**
 * How many bots a worker runs at once when BOT_SLOTS is not set: as many as the Docker engine's
 * machine holds in real time, from what one bot in a call costs there. The costs are the measured
 * ones (bench/capacity.ts and bench/bot-footprint.ts, figures in docs/benchmarks.md), rounded up,
 * so a default install never overcommits its machine; BOT_SLOTS overrides them.
 */
export const BOT_COST = {
  /**
   * CPU of one transcribing bot in a meeting as real meetings load it (issue 31: six cameras, a
   * screen share half the time, the client's page weight), with its video measures on (the
   * default): 0.40 core alone in the call (browser, capture, recognizer), 0.48–0.62 per bot while
   * three or four join at once, when every page receives the cameras until the setting is off. On
   * 2 cores three bots keep up there and four fall behind (docs/benchmarks.md, "Realistic load").
   * On audio-only meetings a bot takes 0.25 core and five keep up on 2 cores: set BOT_SLOTS.
   */
  cores: 0.55,
  /** Memory of one bot as `docker stats` shows it under that load: 820–920 MiB, at most 1,024. */
  memoryMiB: 1024,
} as const;

/** Kept free for the system, the Docker engine and the worker itself. */
export const HOST_RESERVE = { cores: 0.2, memoryMiB: 1024 } as const;

export interface EngineMachine {
  cpus: number;
  memoryBytes: number;
}

export function defaultBotSlots(machine: EngineMachine): number {
  const byCpu = Math.floor((machine.cpus - HOST_RESERVE.cores) / BOT_COST.cores);
  const byMemory = Math.floor(
    (machine.memoryBytes / 1024 / 1024 - HOST_RESERVE.memoryMiB) / BOT_COST.memoryMiB,
  );
  return Math.max(1, Math.min(byCpu, byMemory));
}
