import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/infra/config.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { createBotQueues } from '../../../shared/infra/queues.js';
import { listWorkers } from '../../../shared/workers/store.js';
import { createWorker, openWorkerConnections } from '../../../worker/create-worker.js';
import { DockerRuntime } from '../../../worker/runtime/docker-runtime.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

// The worker process as worker/main.ts makes it (createWorker), against the real Postgres and Redis,
// on a Docker engine that runs no container: built, it starts nothing; start() re-adopts, beats and
// takes launches; stop() ends it all in order and closes its connections.

const log = createLogger('create-worker-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const prefix = uniquePrefix('cw');
const redis = createTestRedis();
let database: TestDatabase;
let recordings: string;

/** An engine with no container: it lists none and its event stream stays open and silent. */
function emptyEngine(): Docker {
  return {
    listContainers: async () => [],
    getEvents: async () => new PassThrough(),
  } as unknown as Docker;
}

beforeAll(async () => {
  database = await createTestDatabase();
  recordings = await mkdtemp(join(tmpdir(), 'create-worker-'));
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database?.drop();
  await rm(recordings, { recursive: true, force: true });
});

describe('createWorker', () => {
  it('starts nothing until asked, then starts every part, and stops them in order', async () => {
    const config = parseConfig({
      DATABASE_URL: database.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      WORKER_ID: 'create-worker-w1',
      WORKER_METRICS_PORT: '0',
      BOT_SLOTS: '3',
      BOT_REDIS_ACL: 'off',
      RECORDING_DIR: recordings,
      LOG_LEVEL: 'silent',
    });
    const connections = openWorkerConnections(config, log);
    const worker = createWorker(config, {
      log,
      connections,
      host: {
        runtime: new DockerRuntime(emptyEngine(), log),
        name: 'engine:test',
        machine: { cpus: 2, memoryBytes: 4 * 2 ** 30 },
      },
    });
    const queues = createBotQueues(redis, prefix);

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await listWorkers(database.db)).toEqual([]);
    expect(await queues.launch.getWorkers()).toEqual([]);

    await worker.start();
    const [beat] = await listWorkers(database.db);
    expect(beat).toMatchObject({ workerId: 'create-worker-w1', slots: 3, accepting: true });
    expect(beat?.dockerHost).toBe('engine:test');
    await expect.poll(async () => (await queues.launch.getWorkers()).length).toBeGreaterThan(0);
    await expect.poll(async () => (await queues.control.getWorkers()).length).toBeGreaterThan(0);

    await worker.stop();
    // The last beat before it let go of the launches says it takes no more.
    expect((await listWorkers(database.db))[0]).toMatchObject({ accepting: false });
    await expect.poll(async () => (await queues.launch.getWorkers()).length).toBe(0);
    expect(connections.redis.status).toBe('end');
    await expect(connections.db.raw('SELECT 1')).rejects.toThrow();
    await worker.stop(); // once only: a second stop is the first one's end
    await Promise.all([queues.launch.close(), queues.control.close()]);
  });
});
