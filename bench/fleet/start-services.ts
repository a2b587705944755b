/**
 * The second phase of a fleet run: the service on the bench's stores, --apis API processes, then
 * --workers worker processes (each with its bot host, the simulated container engine), all with
 * the run's QUEUE_PREFIX, and the webhook receiver they deliver to. With --cpu-prof every service
 * process writes a V8 profile as it exits, summarised once they all have.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cleanups, endProcess } from './cleanups.js';
import { printProfiles } from './cpu-profiles.js';
import { MEETING_ORIGIN } from './fleet-meetings.js';
import type { FleetOptions } from './options.js';
import type { RunLog } from './run-log.js';
import {
  type ApiService,
  LOOPBACK_WEBHOOK_ENV,
  startApiService,
  startWorkerService,
  type WorkerService,
} from './services.js';
import type { Stores } from './start-stores.js';
import { WebhookCounter } from './webhook-counter.js';

export interface Services {
  apis: ApiService[];
  /** In the order of their ids. */
  workers: WorkerService[];
  receiver: WebhookCounter;
  /** The run's QUEUE_PREFIX. */
  prefix: string;
  adminKey: string;
}

export async function startServices(
  options: FleetOptions,
  stores: Stores,
  cleanups: Cleanups,
  log: RunLog,
): Promise<Services> {
  const scratch = mkdtempSync(join(tmpdir(), 'meetbot-fleet-'));
  cleanups.add('scratch directory', () => rmSync(scratch, { recursive: true, force: true }));
  const profiles = join(scratch, 'profiles');
  const nodeArgs = options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [];
  const processNames = new Map<number, string>();
  cleanups.add('profiles', () => printProfiles(profiles, processNames));
  const prefix = `fleet-${randomBytes(3).toString('hex')}`;
  const adminKey = randomBytes(24).toString('base64url');
  const receiver = await new WebhookCounter().start();
  cleanups.add('webhook receiver', () => receiver.close());
  const common = {
    REDIS_URL: stores.redis.url,
    QUEUE_PREFIX: prefix,
    EXTRA_MEETING_ORIGINS: MEETING_ORIGIN,
    RECORDING_DIR: join(scratch, 'recordings'),
    DATABASE_POOL_MAX: String(options.pool),
    ...LOOPBACK_WEBHOOK_ENV,
  };

  const apis: ApiService[] = [];
  for (let index = 0; index < options.apis; index += 1) {
    const api = await startApiService(
      stores.database.url,
      {
        ...common,
        ADMIN_API_KEY: adminKey,
        LOG_LEVEL: 'warn',
        LIVE_STREAMS_PER_USER: String(Math.max(20, options.readers)),
        WS_SOCKETS_PER_KEY: String(Math.max(10, options.readers)),
      },
      { queuePrefix: prefix, pool: options.pool, nodeArgs },
    );
    apis.push(api);
    processNames.set(api.pid, `api ${index + 1}`);
    cleanups.add(`api ${index + 1}`, async () => {
      const before = api.logs.errors;
      await api.stop();
      if (api.logs.errors > before)
        log(`api ${index + 1} while stopping: ${JSON.stringify(api.logs.top(3))}`);
    });
  }

  const workers: WorkerService[] = [];
  cleanups.add('workers', () => Promise.all(workers.map((worker) => endProcess(worker.child, 30_000))));
  await Promise.all(
    Array.from({ length: options.workers }, async (_, index) => {
      const worker = await startWorkerService({
        id: `fleet-w${index + 1}`,
        env: {
          ...common,
          DATABASE_URL: stores.database.url,
          BOT_SLOTS: String(options.slots),
          LOG_LEVEL: 'info',
          WORKER_METRICS_PORT: '0',
        },
        nodeArgs,
        behaviour: options.behaviour,
        statsFile: join(scratch, `host-${index + 1}.json`),
        timeoutMs: 180_000,
      });
      workers.push(worker);
      processNames.set(worker.pid, `worker ${worker.id}`);
      processNames.set(worker.hostPid, `bot host ${worker.id}`);
    }),
  );
  workers.sort((a, b) => a.id.localeCompare(b.id));
  log(
    `${options.apis} API process(es), ${options.workers} worker(s) with BOT_SLOTS ${options.slots}, prefix ${prefix}`,
  );
  return { apis, workers, receiver, prefix, adminKey };
}
