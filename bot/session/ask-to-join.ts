import type { Logger } from '../../shared/infra/logger.js';
import type { EndSignal, Outcome } from '../end-signal.js';
import type { PlatformDriver, Screen } from '../platforms/driver.js';
import { firstLine } from '../platforms/page-actions.js';
import type { Pacing } from './pacing.js';
import { terminalOutcome } from './screen-outcome.js';

export interface AskToJoinDeps {
  end: EndSignal;
  pacing: Pick<Pacing, 'prejoinMs' | 'prejoinStuckMs' | 'prejoinLimitMs'>;
  /** The name to type, read at each step: a rename before the join is used. */
  botName(): string;
  log: Logger;
}

/**
 * A refusal seen before the bot asked to join: where the platform words a refused link like a
 * refused bot (PlatformDriver.refusesBadLinksAsBlocked), it is the link, which no retry mends.
 */
function refusalBeforeAsking(driver: PlatformDriver, outcome: Outcome): Outcome {
  if (!driver.refusesBadLinksAsBlocked || outcome.reason !== 'blocked_by_platform') return outcome;
  return {
    status: 'failed',
    reason: 'meeting_not_found',
    detail: `the platform refused the meeting link before its join form${outcome.detail ? ` (${outcome.detail})` : ''}: a wrong passcode or meeting id`,
  };
}

/**
 * Fills the pre-join form and presses a join button until the page shows we asked (null), or the
 * way the bot can't join.
 */
export async function askToJoin(driver: PlatformDriver, deps: AskToJoinDeps): Promise<Outcome | null> {
  const { end, log } = deps;
  const { prejoinStuckMs, prejoinLimitMs } = deps.pacing;
  const startedAt = Date.now();
  let movedAt = startedAt;
  // A step repeated (a field filled again after a reload, a join press the page ignored) is no move.
  const stepsTaken = new Set<string>();
  let pressedJoin = false;
  const interruptions = new Set<string>();
  let lastScreen: Screen['kind'] | null = null;
  while (Date.now() < Math.min(movedAt + prejoinStuckMs, startedAt + prejoinLimitMs)) {
    if (end.outcome) return end.outcome;
    try {
      const { screen } = await driver.observe();
      lastScreen = screen.kind;
      const terminal = terminalOutcome(screen);
      if (terminal) return pressedJoin ? terminal : refusalBeforeAsking(driver, terminal);
      // Only after pressing a join button: a form whose Join is still disabled can look like a lobby.
      if (pressedJoin && (screen.kind === 'lobby' || screen.kind === 'in_call' || screen.kind === 'dialog')) {
        log.info({ screen: screen.kind }, 'asked to join');
        return null;
      }
      const step = await driver.prepareStep(deps.botName());
      if (step) {
        log.info({ step }, 'pre-join');
        if (step.startsWith('pressed')) pressedJoin = true;
        if (!stepsTaken.has(step)) movedAt = Date.now();
        stepsTaken.add(step);
      }
    } catch (error) {
      // A reload or navigation mid-step destroys the page's context; look again. Each new kind
      // of interruption is said once: a bot that ends `blocked` has only its log to say why.
      const kind = firstLine((error as Error).message);
      log[interruptions.has(kind) ? 'debug' : 'info']({ err: error }, 'pre-join step interrupted');
      interruptions.add(kind);
    }
    await end.sleep(deps.pacing.prejoinMs);
  }
  log.info(
    {
      limit: Date.now() >= startedAt + prejoinLimitMs ? 'in all' : 'without a new step',
      lastScreen,
      steps: [...stepsTaken],
      pressedJoin,
    },
    'gave up on the pre-join form',
  );
  return { status: 'failed', reason: 'blocked', detail: 'the join form never led to a join request' };
}
