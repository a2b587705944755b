import type { Redis } from 'ioredis';
import type { BotCommands } from '../shared/bots/command-channel.js';
import type { BotJobs } from '../shared/bots/jobs.js';
import type { Config } from '../shared/infra/config.js';
import type { Knex } from '../shared/infra/knex.js';
import type { Logger } from '../shared/infra/logger.js';
import type { AnnounceChanges } from '../shared/meetings/changes.js';
import type { BotFleet } from './fleet/bot-fleet.js';
import type { WorkerMetrics } from './metrics/worker-metrics.js';
import type { BotCredentials } from './runtime/bot-credentials.js';
import type { BotRuntime } from './runtime/bot-runtime.js';

/** What the job processors, the exit handler and the reconciler share. */
export interface WorkerDeps {
  config: Config;
  db: Knex;
  /** A non-blocking connection for commands and reads. */
  redis: Redis;
  runtime: BotRuntime;
  /** Each bot's own Redis credential, issued at launch and revoked when the bot is gone. */
  credentials: BotCredentials;
  fleet: BotFleet;
  log: Logger;
  /** Launch durations and the rest of this worker's metrics. */
  metrics: Pick<WorkerMetrics, 'launchDuration' | 'relaunches'> &
    Partial<Pick<WorkerMetrics, 'scheduledLaunchDelay' | 'joinRetries'>>;
  /** Queues launches (a lost host's meetings are relaunched through the same queue). */
  jobs: BotJobs;
  /** Reaches running bots through their command streams. */
  commands: BotCommands;
  /** Tells live streams and webhook dispatchers what changed, after the commit; never throws. */
  announce: AnnounceChanges;
}
