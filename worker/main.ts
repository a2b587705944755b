import type { Redis } from 'ioredis';
import { type Config, loadConfigOrExit } from '../shared/infra/config.js';
import { createLogger, type Logger } from '../shared/infra/logger.js';
import { createWorker, openWorkerConnections } from './create-worker.js';
import { checkAclAllowed, createBotCredentials } from './runtime/bot-credentials.js';
import { BOT_COST } from './fleet/bot-slots.js';
import { type BotHost, dockerBotHost } from './runtime/bot-host.js';
import { kubernetesBotHost } from './runtime/kubernetes/kubernetes-host.js';
import { redisAnswersWithoutCredential } from './runtime/redis-exposure.js';

// The worker process (dist/worker/main.js): its config, the start-up checks, the worker (create-worker.ts)
// and the signals that stop it.
const config = loadConfigOrExit();
const log = createLogger('worker', config.LOG_LEVEL).child({ workerId: config.WORKER_ID });
const connections = openWorkerConnections(config, log);
await checkBotRedisOrExit(connections.redis, config, log);
const host = await openBotHostOrExit(config, log);
const worker = createWorker(config, { log, connections, host });
await worker.start();
worker.shutdown.installSignalHandlers();

/**
 * Before anything starts: bots are given credentials of their own only where that means something.
 * Exits 1 when Redis lets a bot in without one (unless REDIS_OPEN_DEFAULT_USER=allow) or refuses the
 * worker the ACL commands.
 */
async function checkBotRedisOrExit(redis: Redis, config: Config, log: Logger): Promise<void> {
  const credentials = createBotCredentials(redis, config);
  try {
    if (credentials.perBot) await checkAclAllowed(redis, config);
    if (await redisAnswersWithoutCredential(config.REDIS_URL)) {
      const open =
        "Redis answers a client that gives no credential (its default user needs no password): a bot shares the host's network and could connect without its own credential and reach every key; give the default user a password (requirepass) and put it in REDIS_URL (docs/how-a-bot-runs.md#what-a-bot-may-reach)";
      if (config.REDIS_OPEN_DEFAULT_USER === 'allow')
        log.warn(`${open}; REDIS_OPEN_DEFAULT_USER=allow: starting anyway`);
      else {
        log.fatal(`${open}, or set REDIS_OPEN_DEFAULT_USER=allow to start bots anyway`);
        process.exit(1);
      }
    }
  } catch (error) {
    log.fatal({ err: error }, 'cannot give bots credentials of their own');
    process.exit(1);
  }
  if (!credentials.perBot) {
    log.warn(
      'BOT_REDIS_ACL=off: every bot gets the deployment Redis URL with full rights (any bot can reach every key, queue and channel); see docs/settings.md',
    );
  }
}

/** Where the bots run (BOT_RUNTIME); exits 1, saying why, when the worker can't run them there. */
async function openBotHostOrExit(config: Config, log: Logger): Promise<BotHost> {
  try {
    return config.BOT_RUNTIME === 'kubernetes'
      ? kubernetesBotHost(config, log, BOT_COST.cores)
      : await dockerBotHost(config, log);
  } catch (error) {
    log.fatal({ err: error, runtime: config.BOT_RUNTIME }, 'cannot run bots');
    process.exit(1);
  }
}
