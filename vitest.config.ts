import { defineConfig } from 'vitest/config';

/**
 * How the suite shares this 2-core machine (scripts/test.sh runs two lanes at once):
 * - the time-base lane: the ten-minute meeting of test/e2e/bot/time-base.test.ts alone in its own
 *   Vitest process, from the start. It measures media clocks, which must hold under load (it runs
 *   two bots at once on purpose), and it leaves most of a core idle for ten minutes.
 * - the main lane: unit and integration files, then the other e2e files, then the files whose
 *   checks depend on getting the CPU in time (deliberate CPU starvation, speaking signals within
 *   1.2 s of the voice), last and one at a time, when the time-base lane is long done.
 * Each group runs one file at a time: integration and e2e files hold timeouts and deadlines that
 * two files at once on two cores turned into flakes.
 */
const TIME_BASE_FILES = ['test/e2e/bot/time-base.test.ts'];
const CPU_TIMING_FILES = [
  // Starves a bot of CPU on purpose and watches its lag report.
  'test/e2e/stack/transcription-lag.test.ts',
  // Speaking signals and WebRTC levels sampled within a second of the voice.
  'test/e2e/simulator/speaking-signals.test.ts',
];
const E2E = {
  environment: 'node' as const,
  // Compiles the project and builds the bot image once for the run.
  globalSetup: ['test/support/e2e-global-setup.ts'],
  testTimeout: 300_000,
  hookTimeout: 300_000,
  maxWorkers: 1,
  // Real browsers and containers: at most two of a file's concurrent tests at once.
  maxConcurrency: 2,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // The time-base lane runs beside them: a test that takes 2 s alone may take 10 s then.
          testTimeout: 30_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
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
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [...TIME_BASE_FILES, ...CPU_TIMING_FILES],
          ...E2E,
          sequence: { groupOrder: 2 },
        },
      },
      {
        test: {
          name: 'e2e-cpu-timing',
          include: CPU_TIMING_FILES,
          ...E2E,
          sequence: { groupOrder: 3 },
        },
      },
      {
        test: {
          name: 'e2e-time-base',
          include: TIME_BASE_FILES,
          ...E2E,
          // Its bots run on the host (tsx), not in the image: only Postgres and Redis are needed.
          globalSetup: ['test/support/global-setup.ts'],
          sequence: { groupOrder: 4 },
        },
      },
    ],
  },
});
