import { describe, expect, it } from 'vitest';
import { BOT_COST, defaultBotSlots, HOST_RESERVE } from '../../../worker/fleet/bot-slots.js';

const GiB = 1024 ** 3;

describe('the default number of bot slots', () => {
  it('fits the bots in what the CPUs can run in real time, after the reserve', () => {
    expect(defaultBotSlots({ cpus: 2, memoryBytes: 24 * GiB })).toBe(
      Math.floor((2 - HOST_RESERVE.cores) / BOT_COST.cores),
    );
    expect(defaultBotSlots({ cpus: 16, memoryBytes: 64 * GiB })).toBe(
      Math.floor((16 - HOST_RESERVE.cores) / BOT_COST.cores),
    );
  });

  it('never gives more bots than the memory holds, whatever the CPUs', () => {
    const slots = defaultBotSlots({ cpus: 64, memoryBytes: 4 * GiB });
    expect(slots * BOT_COST.memoryMiB).toBeLessThanOrEqual(4 * 1024 - HOST_RESERVE.memoryMiB);
    expect((slots + 1) * BOT_COST.memoryMiB).toBeGreaterThan(4 * 1024 - HOST_RESERVE.memoryMiB);
  });

  it('runs one bot even on a machine below the reserve (a single-bot install still works)', () => {
    expect(defaultBotSlots({ cpus: 1, memoryBytes: 512 * 1024 ** 2 })).toBe(1);
    expect(defaultBotSlots({ cpus: 0, memoryBytes: 0 })).toBe(1);
  });
});
