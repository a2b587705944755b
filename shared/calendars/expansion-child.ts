import { type ExpansionWindow, expandFeed, FeedOverBudgetError, IcsParseError } from './ics.js';

/**
 * The entry of the process one feed is expanded in (shared/calendars/expand-in-child.ts): takes the
 * feed's text and window as its one IPC message, sends back the expansion (instants as epoch ms) or
 * the error's kind and message, and exits.
 */

export interface ExpansionChildInput {
  text: string;
  window: { from: number; to: number; maxOccurrences: number; maxSteps: number };
}

export type ExpansionChildOutput =
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

function run(input: ExpansionChildInput): ExpansionChildOutput {
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

process.once('message', (input: ExpansionChildInput) => {
  process.send?.(run(input), () => process.exit(0));
});
