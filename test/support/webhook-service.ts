import type { Config } from '../../shared/infra/config.js';
import { createLogger } from '../../shared/infra/logger.js';
import { WebhookService } from '../../worker/webhooks/webhook-deliveries.js';
import { startTestApi, type TestApi } from './api.js';
import { FakeBots } from './fake-bot.js';
import { createTestRedis } from './redis.js';
import { WebhookReceiver } from './webhook-receiver.js';

/** Private test endpoints over plain http, fast retries: what the webhook tests run with. */
export const TEST_WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  // Test receivers listen on random ports.
  WEBHOOK_ALLOWED_PORTS: 'any',
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

export interface WebhookWorld {
  api: TestApi;
  bots: FakeBots;
  webhooks: Awaited<ReturnType<typeof startWebhookService>>;
  /** A started receiver on 127.0.0.1, closed with the world. */
  receiver(): Promise<WebhookReceiver>;
  close(): Promise<void>;
}

/**
 * Everything a webhook test needs: the API (accepting the private test endpoints), bots writing
 * through the real ingester, and the worker's delivery with `workerOverrides` on top of its config.
 */
export async function startWebhookWorld(workerOverrides: Partial<Config> = {}): Promise<WebhookWorld> {
  const api = await startTestApi({ env: TEST_WEBHOOK_ENV });
  const bots = new FakeBots(api);
  const webhooks = await startWebhookService(api, workerOverrides);
  const receivers: WebhookReceiver[] = [];
  return {
    api,
    bots,
    webhooks,
    async receiver() {
      const started = await new WebhookReceiver().start();
      receivers.push(started);
      return started;
    },
    async close() {
      await webhooks.close();
      await bots.close();
      for (const receiver of receivers) await receiver.close();
      await api.close();
    },
  };
}
