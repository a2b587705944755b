import { redisBotCommands } from '../../shared/bots/command-channel.js';
import { bullBotJobs } from '../../shared/bots/jobs.js';
import type { BotServiceDeps } from '../../shared/bots/service.js';
import type { Logger } from '../../shared/infra/logger.js';
import { outboundAddressPolicyOf } from '../../shared/infra/outbound-address-policy.js';
import { webhookOutbox } from '../../shared/webhooks/record-events.js';
import type { TestApi } from './api.js';

/**
 * The bots feature's service as a worker's calendar poller is handed it (worker/create-worker.ts),
 * on a test API's database, Redis and queues: the webhook outbox as its event receiver, no
 * announcements. `overrides` sets what a test varies (the bot name, the scheduling horizon).
 */
export function testBotServiceDeps(
  api: TestApi,
  log: Logger,
  overrides: Partial<BotServiceDeps> = {},
): BotServiceDeps {
  return {
    db: api.database.db,
    jobs: bullBotJobs(api.queues),
    commands: redisBotCommands(api.redis, api.prefix),
    log,
    defaultBotName: api.config.DEFAULT_BOT_NAME,
    recordingEnabledDefault: false,
    extraMeetingOrigins: api.config.EXTRA_MEETING_ORIGINS,
    announce: async () => undefined,
    events: webhookOutbox,
    webhookPolicy: outboundAddressPolicyOf(api.config),
    transcriptionEngine: api.config.TRANSCRIPTION_ENGINE,
    schedule: { horizonDays: 30, clockSkewSeconds: 30 },
    ...overrides,
  };
}
