/**
 * A worker process of the fleet bench: the real worker (createWorker: launches, ingest, webhooks,
 * sweeps, heartbeats), its config from the environment as worker/main.ts reads it, with the same
 * start-up checks of the bots' Redis, and its bots run by the simulated runtime (a bot host process
 * of its own) instead of a container engine. The driver (bench/fleet.ts) sets BOT_SLOTS.
 *   node --import tsx bench/fleet/worker-process.ts
 */
import { loadConfigOrExit } from '../../shared/infra/config.js';
import { createLogger } from '../../shared/infra/logger.js';
import { createWorker, openWorkerConnections } from '../../worker/create-worker.js';
import { checkAclAllowed, createBotCredentials } from '../../worker/runtime/bot-credentials.js';
import type { BotHost } from '../../worker/runtime/bot-host.js';
import { redisAnswersWithoutCredential } from '../../worker/runtime/redis-exposure.js';
import { SimulatedRuntime } from './simulated-runtime.js';

const config = loadConfigOrExit();
const log = createLogger('worker', config.LOG_LEVEL).child({ workerId: config.WORKER_ID });
const connections = openWorkerConnections(config, log);

// worker/main.ts's checks: bots get credentials of their own, and Redis lets no one in without one.
try {
  if (createBotCredentials(connections.redis, config).perBot)
    await checkAclAllowed(connections.redis, config);
  if (config.REDIS_OPEN_DEFAULT_USER !== 'allow' && (await redisAnswersWithoutCredential(config.REDIS_URL))) {
    log.fatal('Redis answers a client that gives no credential: refusing to start bots');
    process.exit(1);
  }
} catch (error) {
  log.fatal({ err: error }, 'cannot give bots credentials of their own');
  process.exit(1);
}

const runtime = await SimulatedRuntime.open();
const host: BotHost = { runtime, name: `fleet-${config.WORKER_ID}` };
const worker = createWorker(config, { log, connections, host });
// The worker's own stop leaves its bots running (they outlive a worker restart); the bench's host
// goes with its worker.
worker.shutdown.add('bot host', () => runtime.close());
await worker.start();
worker.shutdown.installSignalHandlers();
log.info({ botHostPid: runtime.hostPid }, 'fleet worker ready');
