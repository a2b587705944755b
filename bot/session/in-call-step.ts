import type { Logger } from '../../shared/infra/logger.js';
import type { EndSignal } from '../end-signal.js';
import type { PlatformDriver } from '../platforms/driver.js';
import { STEP_STOPPED } from '../platforms/step-stopped.js';
import { terminalOutcome } from './screen-outcome.js';

export interface InCallStepDeps {
  end: EndSignal;
  driver: PlatformDriver;
  /** How often the call is looked at beside the step (ms). */
  lookMs: number;
  log: Logger;
  /** How long a step that gave way may take to close what it opened (TIDY_LIMIT_MS by default). */
  tidyLimitMs?: number;
}

/**
 * Past this, a step that gave way is no longer waited for: the page goes to the waiting work even if
 * the step is still busy (a step's own waits are at most some ten seconds each; none should hang).
 */
export const TIDY_LIMIT_MS = 15_000;

/**
 * Runs `step` until it is done, the call is over or `othersWaiting()` says other work waits for the
 * page. Its waits are for a page slow to draw a menu; when the page changed under it or something
 * else is asked of the bot, they must not hold up the bot's look at the call, its leave, an image,
 * speech or chat: a look at the call runs beside it every `lookMs`.
 * - Call over: the step is abandoned at once (it stops between its own steps, presses nothing more).
 * - Others waiting: the step is stopped and waited for while it closes what it opened, unless the
 *   call ends meanwhile or that takes over `tidyLimitMs`; the page is then free for the waiting work.
 */
export async function runInCallStep(
  deps: InCallStepDeps,
  step: (abandoned: AbortSignal) => Promise<void>,
  othersWaiting: () => boolean,
): Promise<void> {
  const abandon = new AbortController();
  let settled = false;
  const stepping = step(abandon.signal)
    .catch((error: unknown) => deps.log.debug({ err: error }, 'in-call step interrupted'))
    .finally(() => {
      settled = true;
    });
  const stopped = await Promise.race([
    stepping.then(() => null),
    watchCall(deps, () => settled, othersWaiting),
  ]);
  if (stopped === null) return;
  abandon.abort(stopped);
  if (stopped === STEP_STOPPED.gaveWay) {
    deps.log.debug('in-call step gave way to other work');
    const limitMs = deps.tidyLimitMs ?? TIDY_LIMIT_MS;
    let timer: NodeJS.Timeout | undefined;
    const tooLong = new Promise<'too long'>((resolve) => {
      timer = setTimeout(() => resolve('too long'), limitMs);
    });
    const tidied = await Promise.race([
      stepping,
      watchCall(
        deps,
        () => settled,
        () => false,
      ),
      tooLong,
    ]);
    clearTimeout(timer);
    if (tidied === 'too long')
      deps.log.warn({ limitMs }, 'an in-call step that gave way is still busy; going on without it');
  }
  settled = true;
}

/** Looks at the call every `lookMs` until `isSettled()`: why the step must stop, or null once settled. */
async function watchCall(
  { end, driver, lookMs }: InCallStepDeps,
  isSettled: () => boolean,
  othersWaiting: () => boolean,
): Promise<(typeof STEP_STOPPED)[keyof typeof STEP_STOPPED] | null> {
  for (;;) {
    await end.sleep(lookMs);
    if (isSettled()) return null;
    if (end.outcome) return STEP_STOPPED.callOver;
    if (othersWaiting()) return STEP_STOPPED.gaveWay;
    const look = await driver.observe({ quiet: true }).catch(() => null);
    if (isSettled()) return null;
    if (look && terminalOutcome(look.screen)) return STEP_STOPPED.callOver;
  }
}
