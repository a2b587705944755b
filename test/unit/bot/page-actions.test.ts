import { describe, expect, it } from 'vitest';
import { heldUpBy } from '../../../bot/platforms/page-actions.js';

/** A click's timeout as Playwright words it: its call log, each line dimmed for a terminal. */
function timedOut(...steps: string[]): string {
  const dim = (line: string) => `\u001b[2m${line}\u001b[22m`;
  return ['locator.click: Timeout 3000ms exceeded.', 'Call log:', ...steps.map(dim), ''].join('\n');
}

describe('what held a timed-out press up', () => {
  it('is the last finding of the call log, its retries and waits left out', () => {
    const restless = timedOut(
      "  - waiting for getByRole('button', { name: /^(ask to join)$/i })",
      '    - locator resolved to <button aria-label="Ask to join">Ask to join</button>',
      '  - attempting click action',
      '    2 × waiting for element to be visible, enabled and stable',
      '      - element is not stable',
      '    - retrying click action',
      '      - waiting 500ms',
    );
    expect(heldUpBy(restless)).toBe('element is not stable');
    const covered = timedOut(
      '  - attempting click action',
      '      - element is visible, enabled and stable',
      '      - done scrolling',
      '      - <div class="toast"></div> intercepts pointer events',
      '    - retrying click action',
      '    - waiting 20ms',
    );
    expect(heldUpBy(covered)).toBe('<div class="toast"></div> intercepts pointer events');
  });

  it('is unknown when the error has no call log', () => {
    expect(heldUpBy('Target page, context or browser has been closed')).toBeUndefined();
  });
});
