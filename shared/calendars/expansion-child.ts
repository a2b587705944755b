import { parentPort, workerData } from 'node:worker_threads';
import { type ExpansionWindow, expandFeed, FeedOverBudgetError, IcsParseError } from './ics.js';

/**
 * The entry of the thread one feed is expanded in (shared/calendars/expand-off-thread.ts): reads the
 * feed's text and window from workerData, posts the expansion (instants as epoch ms) or the error's
 * kind and message once, and ends.
 */

export interface ExpansionThreadInput {
  text: string;
  window: { from: number; to: number; maxOccurrences: number; maxSteps: number };
}

export type ExpansionThreadOutput =
  | { ok: true; expansion: ReturnType<typeof toWire> }
  | { ok: false; kind: 'invalid' | 'over_budget' | 'failed'; message: string };

function toWire(expansion: ReturnType<typeof expandFeed>) {
  return {
    ...expansion,
    occurrences: expansion.occurrences.map((occurrence) => ({
      ...occurrence,
      start: occurrence.start.getTime(),
      end: occurrence.end.getTime(),
    })),
  };
}

function run(input: ExpansionThreadInput): ExpansionThreadOutput {
  const window: ExpansionWindow = {
    ...input.window,
    from: new Date(input.window.from),
    to: new Date(input.window.to),
  };
  try {
    return { ok: true, expansion: toWire(expandFeed(input.text, window)) };
  } catch (error) {
    if (error instanceof FeedOverBudgetError)
      return { ok: false, kind: 'over_budget', message: error.message };
    if (error instanceof IcsParseError) return { ok: false, kind: 'invalid', message: error.message };
    return { ok: false, kind: 'failed', message: String((error as Error)?.message ?? error) };
  }
}

parentPort?.postMessage(run(workerData as ExpansionThreadInput));
