import type { Logger } from '../../shared/infra/logger.js';
import type { MeetingPage } from '../meeting-page.js';
import type { PlatformDriver } from '../platforms/driver.js';
import { withLimit } from './time-limit.js';

const LEAVE_LIMIT_MS = 10_000;

/**
 * Whether the bot is in a lobby or a call it has to leave, and leaving it through the page: once,
 * and never when the page already showed the call is over.
 */
export class CallExit {
  private inLobbyOrCall = false;

  constructor(
    private readonly page: () => MeetingPage | null,
    private readonly log: Logger,
  ) {}

  /** The bot asked to join: from now on there is a lobby or a call to leave. */
  entered(): void {
    this.inLobbyOrCall = true;
  }

  /** The page showed the call is over (ended, removed): there is nothing to leave. */
  callEnded(): void {
    this.inLobbyOrCall = false;
  }

  async leave(driver: PlatformDriver): Promise<void> {
    if (!this.inLobbyOrCall) return;
    this.inLobbyOrCall = false;
    await this.page()
      ?.media.stop()
      .catch(() => {});
    await withLimit(driver.leave(), LEAVE_LIMIT_MS, 'leaving the call', this.log).catch((error: unknown) =>
      this.log.warn({ err: error }, 'leaving through the page failed'),
    );
  }
}
