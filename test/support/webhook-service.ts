import type { Config } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { WebhookService } from '../../worker/webhooks/webhook-service.js';
import type { TestApi } from './api.js';
import { createTestRedis } from './redis.js';

/** Private test endpoints over plain http, fast retries: what the webhook tests run with. */
export const TEST_WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_MAX_DELAY_MS: '400',
  WEBHOOK_TIMEOUT_MS: '5000',
};

/**
 * The worker's webhook delivery, as a worker process runs it, against the test API's database and
 * queue prefix. The sweep is slow so that deliveries must be woken by the commit announcements.
 */
export async function startWebhookService(
  api: TestApi,
  overrides: Partial<Config> = {},
  sweepIntervalMs = 60_000,
): Promise<{ service: WebhookService; close(): Promise<void> }> {
  const workerConnection = createTestRedis();
  const service = new WebhookService(
    {
      config: { ...api.config, ...overrides },
      db: api.database.db,
      log: createLogger('webhooks-test', api.config.LOG_LEVEL),
    },
    { queue: api.redis, worker: workerConnection, subscriber: createTestRedis() },
    sweepIntervalMs,
  );
  await service.start();
  return {
    service,
    async close() {
      await service.stop();
      workerConnection.disconnect();
    },
  };
}
