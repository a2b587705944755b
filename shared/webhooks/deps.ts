import type { Config } from '../infra/config.js';
import type { Knex } from '../infra/knex.js';
import type { Logger } from '../infra/logger.js';

/** What webhook delivery needs: no Docker, no bot slots. */
export interface WebhookDeps {
  config: Pick<
    Config,
    | 'QUEUE_PREFIX'
    | 'WEBHOOK_TIMEOUT_MS'
    | 'WEBHOOK_RETRY_BASE_MS'
    | 'WEBHOOK_RETRY_MAX_DELAY_MS'
    | 'WEBHOOK_RETRY_WINDOW_SECONDS'
    | 'WEBHOOK_CONCURRENCY'
    | 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES'
    | 'WEBHOOK_ALLOW_HTTP'
    | 'WEBHOOK_ALLOWED_PORTS'
  >;
  db: Knex;
  log: Logger;
  /** Told the outcome of every attempt (a worker counts them for its metrics). */
  onAttempt?: (outcome: DeliveryAttemptOutcome) => void;
}

export type DeliveryAttemptOutcome = 'delivered' | 'retrying' | 'given_up';
