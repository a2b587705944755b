import type { Outcome } from '../end-signal.js';
import type { Screen } from '../platforms/driver.js';

/** The session's outcome a screen means: a failed or ended page ends it; any other screen does not. */
export function terminalOutcome(screen: Screen): Outcome | null {
  if (screen.kind === 'failed') return { status: 'failed', reason: screen.reason, detail: screen.detail };
  if (screen.kind === 'ended') return { status: 'completed', reason: screen.reason, detail: screen.detail };
  return null;
}
