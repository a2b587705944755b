/**
 * How many bots a worker runs at once when BOT_SLOTS is not set: as many as the Docker engine's
 * machine holds in real time, from what one bot in a call costs there. The costs are the measured
 * ones (bench/capacity.ts and bench/bot-footprint.ts, figures in docs/benchmarks.md), rounded up,
 * so a default install never overcommits its machine; BOT_SLOTS overrides them.
 */
export const BOT_COST = {
  /**
   * CPU of one transcribing bot with the embedded engine's default profile (balanced): 0.25–0.27
   * core measured in a call at 1 to 6 bots on 2 cores (browser, capture, recognizer), plus headroom:
   * five bots kept up there with the WER of one (1.43 cores used), six kept up but their WER rose
   * 3–4 points (1.70 cores). With the `fast` profile six keep up at one bot's WER: set BOT_SLOTS.
   */
  cores: 0.35,
  /** Memory of one bot: its processes' PSS through a 3-speaker meeting averaged 515 MiB alone. */
  memoryMiB: 550,
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
