import { defineConfig } from 'vitest/config';

/**
 * How the suite shares this 2-core machine. Everything that only needs to be correct runs two files
 * at a time (unit, integration and most e2e files: each has its own database, key prefix, simulator
 * and containers). Files that measure timing run afterwards, one at a time and alone, so nothing
 * else competes for the cores while they measure.
 */
const TIMING_FILES = [
  // Segment times within 100 ms of the voices over a ten-minute meeting.
  'test/e2e/bot/time-base.test.ts',
  // Starves a bot of CPU on purpose and watches its lag report.
  'test/e2e/stack/transcription-lag.test.ts',
];
const PARALLEL_FILES = 2;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // They run beside e2e files: a test that takes 2 s alone may take 10 s then.
          testTimeout: 30_000,
          maxWorkers: PARALLEL_FILES,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: PARALLEL_FILES,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: TIMING_FILES,
          environment: 'node',
          // Compiles the project and builds the bot image once for the run.
          globalSetup: ['test/support/e2e-global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          maxWorkers: PARALLEL_FILES,
          // Real browsers and containers: at most two of a file's concurrent tests at once.
          maxConcurrency: 2,
        },
      },
      {
        test: {
          name: 'e2e-timing',
          include: TIMING_FILES,
          environment: 'node',
          globalSetup: ['test/support/e2e-global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // After everything else, one file at a time.
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
          maxConcurrency: 2,
        },
      },
    ],
  },
});
