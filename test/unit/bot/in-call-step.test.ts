import { describe, expect, it } from 'vitest';
import { EndSignal } from '../../../bot/end-signal.js';
import type { Observation, PlatformDriver, Screen } from '../../../bot/platforms/driver.js';
import { gaveWay, STEP_STOPPED, tidiesUp } from '../../../bot/platforms/step-stopped.js';
import { runInCallStep } from '../../../bot/session/in-call-step.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('in-call-step-test', 'silent');

/** A call whose page shows `screen()` at each look. */
function call(screen: () => Screen = () => ({ kind: 'in_call' })) {
  const end = new EndSignal();
  const driver = {
    observe: async (): Promise<Observation> => ({ screen: screen(), others: null }),
  } as unknown as PlatformDriver;
  return { end, deps: { end, driver, lookMs: 5, log } };
}

/** A step stuck on the page until it is stopped; it then takes `tidyMs` to close what it opened (never, with null). */
function stuckStep(tidyMs: number | null) {
  const seen: { signal: AbortSignal | null; tidied: boolean } = { signal: null, tidied: false };
  const step = (abandoned: AbortSignal) => {
    seen.signal = abandoned;
    return new Promise<void>((resolve) => {
      abandoned.addEventListener('abort', () => {
        if (tidyMs === null) return;
        setTimeout(() => {
          seen.tidied = true;
          resolve();
        }, tidyMs);
      });
    });
  };
  return { step, seen };
}

describe('a best-effort step in the call', () => {
  it('runs to its end when nothing stops it, its signal never aborted', async () => {
    const { deps } = call();
    let signal: AbortSignal | null = null;
    await runInCallStep(
      deps,
      async (abandoned) => {
        signal = abandoned;
        await new Promise((resolve) => setTimeout(resolve, 30));
      },
      () => false,
    );
    expect(signal!.aborted).toBe(false);
  });

  it('gives way to work waiting for the page, and is waited for while it closes what it opened', async () => {
    const { deps } = call();
    const { step, seen } = stuckStep(50);
    let waiting = false;
    setTimeout(() => {
      waiting = true;
    }, 20);
    await runInCallStep(deps, step, () => waiting);
    expect(seen.signal!.reason).toBe(STEP_STOPPED.gaveWay);
    expect(gaveWay(seen.signal!)).toBe(true);
    expect(tidiesUp(seen.signal!)).toBe(true);
    // Without the wait the page would go to the waiting work while the step still presses Escape.
    expect(seen.tidied).toBe(true);
  });

  it.each([
    ['the bot is told to leave', 'told'],
    ['the page shows the meeting ended', 'page'],
  ] as const)('is abandoned at once, without tidying, when %s', async (_when, how) => {
    let ended = false;
    const { end, deps } = call(() =>
      ended ? { kind: 'ended', reason: 'meeting_ended', detail: 'the call ended' } : { kind: 'in_call' },
    );
    const { step, seen } = stuckStep(null);
    setTimeout(() => {
      if (how === 'told') end.end({ status: 'completed', reason: 'stopped' });
      else ended = true;
    }, 20);
    await runInCallStep(deps, step, () => false);
    expect(seen.signal!.reason).toBe(STEP_STOPPED.callOver);
    expect(gaveWay(seen.signal!)).toBe(false);
    expect(tidiesUp(seen.signal!)).toBe(false);
  });

  it('that gave way is not waited for past the end of the call', async () => {
    const { end, deps } = call();
    const { step, seen } = stuckStep(null); // its tidying never ends
    setTimeout(() => end.end({ status: 'completed', reason: 'stopped' }), 40);
    await runInCallStep(deps, step, () => true);
    expect(seen.signal!.reason).toBe(STEP_STOPPED.gaveWay);
    expect(end.outcome).not.toBeNull();
  });

  it('that gave way and never finishes is waited for only up to its tidy limit', async () => {
    const { deps } = call();
    const { step, seen } = stuckStep(null);
    const started = Date.now();
    await runInCallStep({ ...deps, tidyLimitMs: 50 }, step, () => true);
    expect(seen.signal!.reason).toBe(STEP_STOPPED.gaveWay);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a step not stopped still tidies up', () => {
    expect(tidiesUp(undefined)).toBe(true);
    expect(tidiesUp(new AbortController().signal)).toBe(true);
  });
});
