import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator } from '../../../simulator/server.js';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { freePort } from '../../support/stack.js';

// The compose deployment end to end: scripts/compose-up.sh builds the bot and service images (only
// what changed), starts docker/compose.yml with the host-network override under a project name of
// its own, on a fresh database of this machine's Postgres and a fresh key prefix of its Redis; a bot
// sent through the compose-run API joins a simulated Google Meet meeting and transcribes it; then
// `down` leaves no container of the project and no bot container behind.

const execFileAsync = promisify(execFile);
const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
const POSTGRES_SERVER = 'postgres://postgres@127.0.0.1:5432';
const suffix = randomBytes(4).toString('hex');
const project = `mbcompose${suffix}`;
const database = `meetbot_compose_${suffix}`;
const prefix = `mbcompose-${suffix}`;
const adminKey = `compose-admin-${randomBytes(12).toString('hex')}`;
const docker = new Docker();

let sim: Awaited<ReturnType<typeof createSimulator>>;
let env: Record<string, string>;
let baseUrls: string[] = [];
let apiKey = '';
let upSeconds = 0;

async function compose(script: 'compose-up.sh' | 'compose-down.sh', timeoutMs: number) {
  try {
    return await execFileAsync('bash', [`scripts/${script}`], {
      cwd: REPO_ROOT,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
    });
  } catch (error) {
    const failed = error as { message: string; stdout?: string; stderr?: string };
    throw new Error(`${script} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

async function projectContainers() {
  return docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${project}`] } });
}

/** Bot containers started by this project's workers (their WORKER_ID ends with the container name). */
async function botContainers() {
  const bots = await docker.listContainers({ all: true, filters: { label: [Labels.workerId] } });
  return bots.filter((bot) => (bot.Labels[Labels.workerId] ?? '').includes(`${project}_worker_`));
}

async function api(base: string, method: string, path: string, json?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-Key': apiKey, ...(json !== undefined && { 'Content-Type': 'application/json' }) },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary JSON answers
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any, text };
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

beforeAll(async () => {
  sim = await createSimulator({ host: '127.0.0.1', port: 0 });
  const [port1, port2] = [await freePort(), await freePort()];
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    COMPOSE_PROJECT_NAME: project,
    DATABASE_URL: `${POSTGRES_SERVER}/${database}`,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    ADMIN_API_KEY: adminKey,
    EXTRA_MEETING_ORIGINS: new URL(sim.url).origin,
    API_PORT_1: String(port1),
    API_PORT_2: String(port2),
    MEETBOT_USER_EMAIL: `compose-${suffix}@example.com`,
  };
  const started = Date.now();
  const { stdout } = await compose('compose-up.sh', 20 * 60_000);
  upSeconds = (Date.now() - started) / 1000;
  apiKey = /API key:\s+(mb_\S+)/.exec(stdout)?.[1] ?? '';
  baseUrls = [`http://127.0.0.1:${port1}`, `http://127.0.0.1:${port2}`];
}, 21 * 60_000);

afterAll(async () => {
  // Cleanup only; the test itself checks that `down` leaves nothing behind.
  if (env) await compose('compose-down.sh', 120_000).catch(() => undefined);
  for (const bot of await botContainers().catch(() => [])) {
    await docker
      .getContainer(bot.Id)
      .remove({ force: true })
      .catch(() => undefined);
  }
  await sim?.close();
  const admin = new pg.Client({ connectionString: `${POSTGRES_SERVER}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.end();
  const { createTestRedis, deleteKeys } = await import('../../support/redis.js');
  const redis = createTestRedis(TEST_REDIS_URL);
  await deleteKeys(redis, prefix);
  await redis.quit();
}, 180_000);

describe('docker-compose deployment (host networking, this machine’s Postgres and Redis)', () => {
  it(
    'runs migrate, two API replicas and a worker; a bot sent through it transcribes; down removes everything',
    async () => {
      console.log(`compose-up.sh took ${upSeconds.toFixed(0)} s`);
      expect(apiKey).toMatch(/^mb_/);
      const containers = await projectContainers();
      const byService = (service: string) =>
        containers.filter((c) => c.Labels['com.docker.compose.service'] === service);
      expect(byService('migrate').map((c) => c.State)).toEqual(['exited']);
      expect(byService('api-1').map((c) => c.State)).toEqual(['running']);
      expect(byService('api-2').map((c) => c.State)).toEqual(['running']);
      expect(byService('worker').map((c) => c.State)).toEqual(['running']);
      for (const base of baseUrls) expect((await fetch(`${base}/readyz`)).status).toBe(200);
      // Not root inside the service image.
      const user = (await docker.getContainer(byService('api-1')[0]?.Id ?? '').inspect()).Config.User;
      expect(user).toBe('meetbot:meetbot');

      const simulator = new SimulatorClient(sim.url);
      const meeting = await simulator.createMeeting({
        platform: 'google_meet',
        admission: { policy: 'after', delaySeconds: 2 },
        participants: [
          {
            name: 'Alice Archer',
            voice: 'slt',
            utterances: [
              { at: 1, text: 'good morning everyone and welcome to the weekly review' },
              { at: 7, text: 'the quarterly report is finished and we can discuss it now' },
            ],
          },
        ],
      });
      const [api1, api2] = baseUrls as [string, string];
      const created = await api(api1, 'POST', '/bots', {
        platform: meeting.platform,
        native_meeting_id: meeting.id,
        meeting_url: meeting.url,
        bot_name: 'Compose notetaker',
      });
      expect(created.status, created.text).toBe(201);
      const meetingId = created.body.id as number;

      // Through the other replica: the meeting becomes active and segments with text arrive.
      await waitFor('the meeting to be active', 180_000, async () => {
        const { body } = await api(api2, 'GET', `/meetings/${meetingId}`);
        if (body?.status === 'failed' || body?.status === 'completed') {
          throw new Error(`the meeting ended early: ${JSON.stringify(body)}`);
        }
        return body?.status === 'active' ? true : undefined;
      });
      expect((await botContainers()).filter((bot) => bot.State === 'running')).toHaveLength(1);
      const segments = await waitFor('a transcript segment with text', 120_000, async () => {
        const { body } = await api(api2, 'GET', `/transcripts/google_meet/${meeting.id}`);
        const withText = ((body?.segments ?? []) as Array<{ text?: string }>).filter((s) => s.text?.trim());
        return withText.length > 0 ? withText : undefined;
      });
      console.log(`first segment: ${JSON.stringify(segments[0]?.text)}`);

      const stopped = await api(api1, 'DELETE', `/bots/google_meet/${meeting.id}`);
      expect(stopped.status, stopped.text).toBe(202);
      await waitFor('the bot container to be removed', 120_000, async () =>
        (await botContainers()).length === 0 ? true : undefined,
      );
      const { body: final } = await api(api1, 'GET', `/meetings/${meetingId}`);
      expect(final.status).toBe('completed');

      await compose('compose-down.sh', 120_000);
      expect(await projectContainers()).toEqual([]);
      expect(await botContainers()).toEqual([]);
    },
    10 * 60_000,
  );
});
