import { type ChildProcess, fork } from 'node:child_process';
import type { ExpansionChildInput, ExpansionChildOutput } from './expansion-child.js';
import { type Expansion, type ExpansionWindow, FeedOverBudgetError, IcsParseError } from './ics.js';

/** What one feed's expansion may use besides its window's step budget. */
export interface ExpansionLimits {
  /** CALENDAR_FEED_EXPANSION_TIMEOUT_MS: the process is killed after this long. */
  timeoutMs: number;
  /** CALENDAR_FEED_EXPANSION_MEMORY_MB: the process's heap. */
  memoryMb: number;
}

/**
 * The child's module: the compiled .js beside this file, or, where this file runs as TypeScript
 * (tests, tsx), the .ts through tsx's loader.
 */
function startChild(memoryMb: number): ChildProcess {
  const typescript = import.meta.url.endsWith('.ts');
  const entry = new URL(`./expansion-child.${typescript ? 'ts' : 'js'}`, import.meta.url);
  return fork(entry, [], {
    execArgv: [`--max-old-space-size=${memoryMb}`, ...(typescript ? ['--import', 'tsx'] : [])],
    serialization: 'advanced',
    // Its stderr would carry V8's out-of-memory report: the outcome says it in one line instead.
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * expandFeed in a process of its own, so that a feed built to be slow (a rule that never matches,
 * such as 30 February, loops inside ical.js and grows its heap) or large never holds the worker's
 * event loop nor takes the worker down: the process is killed at the time limit, its heap is capped
 * (V8 ends a process that passes it, which a worker thread's resource limits did not contain), and
 * the feed's steps are counted as they are taken. Over a budget: FeedOverBudgetError, with what the
 * feed's owner can do about it.
 */
export function expandFeedInChild(
  text: string,
  window: ExpansionWindow & { maxSteps: number },
  limits: ExpansionLimits,
): Promise<Expansion> {
  const input: ExpansionChildInput = {
    text,
    window: {
      from: window.from.getTime(),
      to: window.to.getTime(),
      maxOccurrences: window.maxOccurrences,
      maxSteps: window.maxSteps,
    },
  };
  return new Promise<Expansion>((resolve, reject) => {
    const child = startChild(limits.memoryMb);
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
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
    child.on('message', (output: ExpansionChildOutput) =>
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
    child.on('error', (error) => settle(() => reject(error)));
    child.on('exit', (code, signal) =>
      settle(() =>
        reject(
          // V8 aborts a process whose heap is full (SIGABRT, or exit code 134 through a shell).
          signal === 'SIGABRT' || code === 134
            ? new FeedOverBudgetError(`the feed needs more than ${limits.memoryMb} MB of memory to read`)
            : new Error(`the feed's expansion process ended (${signal ?? `code ${code}`}) without an answer`),
        ),
      ),
    );
    child.send(input, (error) => {
      if (error) settle(() => reject(error));
    });
  });
}
