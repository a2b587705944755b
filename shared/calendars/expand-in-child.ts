import { Worker } from 'node:worker_threads';
import type { ExpansionThreadInput, ExpansionThreadOutput } from './expansion-thread.js';
import { type Expansion, type ExpansionWindow, FeedOverBudgetError, IcsParseError } from './ics.js';

/** What one feed's expansion may use besides its window's step budget. */
export interface ExpansionLimits {
  /** CALENDAR_FEED_EXPANSION_TIMEOUT_MS: the thread is stopped after this long. */
  timeoutMs: number;
  /** CALENDAR_FEED_EXPANSION_MEMORY_MB: the thread's heap. */
  memoryMb: number;
}

/**
 * The thread's module: the compiled .js beside this file, or, where this file runs as TypeScript
 * (tests, tsx), the .ts through tsx's loader, which a worker does not inherit from its parent.
 */
function startThread(input: ExpansionThreadInput, memoryMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./expansion-thread.js', import.meta.url), {
      workerData: input,
      resourceLimits,
    });
  }
  const entry = JSON.stringify(new URL('./expansion-thread.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); })`;
  return new Worker(boot, { eval: true, workerData: input, resourceLimits });
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * expandFeed in a thread of its own, so that a feed built to be slow (a rule that never matches,
 * such as 30 February, loops inside ical.js) or large never holds the worker's event loop: the
 * thread is stopped at the time limit, its heap is capped, and the feed's steps are counted as they
 * are taken. Over a budget: FeedOverBudgetError, with what the feed's owner can do about it.
 */
export function expandFeedOffThread(
  text: string,
  window: ExpansionWindow & { maxSteps: number },
  limits: ExpansionLimits,
): Promise<Expansion> {
  const input: ExpansionThreadInput = {
    text,
    window: {
      from: window.from.getTime(),
      to: window.to.getTime(),
      maxOccurrences: window.maxOccurrences,
      maxSteps: window.maxSteps,
    },
  };
  return new Promise<Expansion>((resolve, reject) => {
    const thread = startThread(input, limits.memoryMb);
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void thread.terminate();
      outcome();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new FeedOverBudgetError(
              `the feed took more than ${seconds(limits.timeoutMs)} to read; a recurrence rule that ` +
                'never matches a date (such as BYMONTH=2;BYMONTHDAY=30) or a very large feed does this',
            ),
          ),
        ),
      limits.timeoutMs,
    );
    thread.on('message', (output: ExpansionThreadOutput) =>
      settle(() => {
        if (output.ok) {
          resolve({
            ...output.expansion,
            occurrences: output.expansion.occurrences.map((occurrence) => ({
              ...occurrence,
              start: new Date(occurrence.start),
              end: new Date(occurrence.end),
            })),
          });
        } else if (output.kind === 'over_budget') reject(new FeedOverBudgetError(output.message));
        else if (output.kind === 'invalid') reject(new IcsParseError(output.message));
        else reject(new Error(`expanding the feed failed: ${output.message}`));
      }),
    );
    thread.on('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new FeedOverBudgetError(`the feed needs more than ${limits.memoryMb} MB of memory to read`)
            : error,
        ),
      ),
    );
    thread.on('exit', (code) =>
      settle(() => reject(new Error(`the feed's expansion thread ended (code ${code}) without an answer`))),
    );
  });
}
