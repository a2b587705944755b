import type { Logger } from '../../shared/infra/logger.js';
import type { EndSignal, Outcome } from '../end-signal.js';
import type { PlatformDriver, Screen } from '../platforms/driver.js';
import { AdmissionTracker } from './admission.js';
import type { CallExit } from './call-exit.js';
import { terminalOutcome } from './screen-outcome.js';

export interface AwaitAdmissionDeps {
  end: EndSignal;
  lobbyMs: number;
  admissionTimeoutSeconds: number;
  /** The name to type again when a reload brings the join form back. */
  botName(): string;
  /** Starts the audio capture (once): at the first sign of admission. */
  startCapture(): Promise<void>;
  exit: CallExit;
  log: Logger;
}

/**
 * Waits in the lobby until admitted (null); answers dialogs, asks again after a reload, and gives up
 * (leaving the lobby) at the admission timeout.
 */
export async function awaitAdmission(
  driver: PlatformDriver,
  deps: AwaitAdmissionDeps,
): Promise<Outcome | null> {
  const { end, exit, log } = deps;
  const tracker = new AdmissionTracker();
  const deadline = Date.now() + deps.admissionTimeoutSeconds * 1000;
  let last: Screen['kind'] | null = null;
  while (!end.outcome) {
    if (Date.now() >= deadline) {
      await exit.leave(driver);
      return { status: 'failed', reason: 'admission_timeout', detail: 'not admitted in time' };
    }
    try {
      const { screen } = await driver.observe();
      if (screen.kind !== last) log.info({ screen: screen.kind }, 'waiting for admission');
      last = screen.kind;
      const terminal = terminalOutcome(screen);
      if (terminal) return terminal;
      // The first sign of admission starts the capture, so the first words aren't lost to the
      // confirming look; lobby silence before a false sign costs nothing.
      if (screen.kind === 'in_call' || screen.kind === 'dialog') await deps.startCapture();
      if (tracker.observe(screen)) return null;
      if (screen.kind === 'dialog') {
        const answer = await driver.answerDialog();
        if (answer) log.info({ answer }, 'answered a dialog');
      } else if (screen.kind === 'prejoin') {
        const step = await driver.prepareStep(deps.botName());
        if (step) log.info({ step }, 'joining again');
      }
    } catch (error) {
      log.debug({ err: error }, 'lobby observation interrupted');
    }
    await end.sleep(deps.lobbyMs);
  }
  await exit.leave(driver);
  return end.outcome;
}
