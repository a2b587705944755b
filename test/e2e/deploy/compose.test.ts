import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator } from '../../../simulator/server.js';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { freePort } from '../../support/stack.js';
import { wordErrorRate } from '../../support/wer.js';

// The compose deployment end to end, as an operator runs it on this machine: scripts/compose-up.sh
// builds the images (only what changed; Postgres and Redis from Debian's packages, no registry) and
// starts docker/compose.yml with the host-network override under a project name of its own, with its
// own Postgres and Redis on free ports (this machine's, on 5432 and 6379, are never touched), two
// API replicas and two workers. A bot sent through one replica joins a simulated Google Meet meeting
// and transcribes it; the other replica serves the transcript; the stop removes the bot container;
// `compose-down.sh --volumes` leaves no container, volume or bot behind.

const execFileAsync = promisify(execFile);
const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
const suffix = randomBytes(4).toString('hex');
const project = `mbcompose${suffix}`;
const adminKey = `compose-admin-${randomBytes(12).toString('hex')}`;
const docker = new Docker();
const SPOKEN = [
  'good morning everyone and welcome to the weekly review',
  'the quarterly report is finished and we can discuss it now',
];

let sim: Awaited<ReturnType<typeof createSimulator>>;
let env: Record<string, string>;
let baseUrls: string[] = [];
let apiKey = '';
let upSeconds = 0;

async function composeScript(script: 'compose-up.sh' | 'compose-down.sh', args: string[], timeoutMs: number) {
  try {
    return await execFileAsync('bash', [`scripts/${script}`, ...args], {
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

const projectFilter = { label: [`com.docker.compose.project=${project}`] };

async function projectContainers() {
  return docker.listContainers({ all: true, filters: projectFilter });
}

async function projectVolumes() {
  return (await docker.listVolumes({ filters: projectFilter })).Volumes ?? [];
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

/** The worker id a worker container logged at start-up (pino JSON lines carry it). */
async function loggedWorkerId(containerId: string): Promise<string | undefined> {
  const output = await docker.getContainer(containerId).logs({ stdout: true, stderr: true, tail: 200 });
  return /"workerId":"([^"]+)"/.exec(output.toString('utf8'))?.[1];
}

beforeAll(async () => {
  sim = await createSimulator({ host: '127.0.0.1', port: 0 });
  const ports = {
    api1: await freePort(),
    api2: await freePort(),
    pg: await freePort(),
    redis: await freePort(),
  };
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    COMPOSE_PROJECT_NAME: project,
    COMPOSE_FILES: 'docker/compose.yml docker/compose.host.yml',
    POSTGRES_PORT: String(ports.pg),
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    REDIS_PASSWORD: randomBytes(12).toString('hex'),
    REDIS_PORT: String(ports.redis),
    QUEUE_PREFIX: `mbcompose-${suffix}`,
    ADMIN_API_KEY: adminKey,
    EXTRA_MEETING_ORIGINS: new URL(sim.url).origin,
    API_PORT_1: String(ports.api1),
    API_PORT_2: String(ports.api2),
    WORKERS: '2',
    MEETBOT_USER_EMAIL: `compose-${suffix}@example.com`,
  };
  const started = Date.now();
  const { stdout } = await composeScript('compose-up.sh', [], 20 * 60_000);
  upSeconds = (Date.now() - started) / 1000;
  apiKey = /API key:\s+(mb_\S+)/.exec(stdout)?.[1] ?? '';
  baseUrls = [`http://127.0.0.1:${ports.api1}`, `http://127.0.0.1:${ports.api2}`];
}, 21 * 60_000);

afterAll(async () => {
  // Cleanup only; the test itself checks that `down` leaves nothing behind.
  if (env) await composeScript('compose-down.sh', ['--volumes'], 180_000).catch(() => undefined);
  for (const bot of await botContainers().catch(() => [])) {
    await docker
      .getContainer(bot.Id)
      .remove({ force: true })
      .catch(() => undefined);
  }
  await sim?.close();
}, 240_000);

describe('docker-compose deployment (host networking, the stack’s own Postgres and Redis)', () => {
  it(
    'runs Postgres, Redis, migrate, two API replicas and two workers; a bot sent through it transcribes; down -v removes everything',
    async () => {
      console.log(`compose-up.sh took ${upSeconds.toFixed(0)} s`);
      expect(apiKey).toMatch(/^mb_/);
      const containers = await projectContainers();
      const byService = (service: string) =>
        containers.filter((c) => c.Labels['com.docker.compose.service'] === service);
      for (const service of ['postgres', 'redis', 'api-1', 'api-2']) {
        expect(
          byService(service).map((c) => c.State),
          service,
        ).toEqual(['running']);
      }
      expect(byService('migrate').map((c) => c.State)).toEqual(['exited']);
      expect(byService('postgres')[0]?.Image).toBe('meetbot/stores:trixie');
      const workers = byService('worker');
      expect(workers.map((c) => c.State)).toEqual(['running', 'running']);
      // Two replicas on the host's network share its host name; each names itself after its container.
      const workerIds = await Promise.all(workers.map((worker) => loggedWorkerId(worker.Id)));
      expect(new Set(workerIds).size, JSON.stringify(workerIds)).toBe(2);
      for (const id of workerIds) expect(id).toMatch(new RegExp(`-${project}_worker_[12]$`));
      for (const base of baseUrls) expect((await fetch(`${base}/readyz`)).status).toBe(200);
      // Not root inside the service image.
      const user = (await docker.getContainer(byService('api-1')[0]?.Id ?? '').inspect()).Config.User;
      expect(user).toBe('meetbot:meetbot');
      // Bull Board from the compiled API in the image serves the translations its UI fetches.
      const locale = await fetch(`${baseUrls[0]}/admin/queues/static/locales/en-US/messages.json`, {
        headers: { Authorization: `Basic ${Buffer.from(`admin:${adminKey}`).toString('base64')}` },
      });
      expect(locale.status).toBe(200);
      expect(((await locale.json()) as { MENU: { QUEUES: string } }).MENU.QUEUES).toBe('QUEUES');

      const simulator = new SimulatorClient(sim.url);
      const meeting = await simulator.createMeeting({
        platform: 'google_meet',
        admission: { policy: 'after', delaySeconds: 2 },
        participants: [
          {
            name: 'Alice Archer',
            voice: 'slt',
            utterances: SPOKEN.map((text, index) => ({ at: 1 + index * 6, text })),
          },
        ],
      });
      const [api1, api2] = baseUrls as [string, string];
      const created = await api(api1, 'POST', '/bots', {
        platform: meeting.platform,
        native_meeting_id: meeting.id,
        meeting_url: meeting.url,
        bot_name: 'Compose notetaker',
        recording_enabled: true,
      });
      expect(created.status, created.text).toBe(201);
      const meetingId = created.body.id as number;

      // Through the other replica: the meeting becomes active; the bot runs on one of the workers.
      await waitFor('the meeting to be active', 180_000, async () => {
        const { body } = await api(api2, 'GET', `/meetings/${meetingId}`);
        if (body?.status === 'failed' || body?.status === 'completed') {
          throw new Error(`the meeting ended early: ${JSON.stringify(body)}`);
        }
        return body?.status === 'active' ? true : undefined;
      });
      const running = (await botContainers()).filter((bot) => bot.State === 'running');
      expect(running).toHaveLength(1);
      expect(workerIds).toContain(running[0]?.Labels[Labels.workerId]);

      await simulator.waitForSpeechDone(meeting.id, { timeoutMs: 90_000 });
      const transcript = await waitFor('the second utterance in the transcript', 60_000, async () => {
        const { body } = await api(api2, 'GET', `/transcripts/google_meet/${meeting.id}`);
        const segments = (body?.segments ?? []) as Array<{ text: string; speaker: string }>;
        return segments.length >= 2 && /report|quarterly|discuss/.test(segments.map((s) => s.text).join(' '))
          ? segments
          : undefined;
      });
      const heard = transcript.map((segment) => segment.text).join(' ');
      console.log(`transcript: ${JSON.stringify(heard)}`);
      expect(transcript.every((segment) => segment.speaker === 'Alice Archer')).toBe(true);
      expect(wordErrorRate(SPOKEN.join(' '), heard).rate).toBeLessThan(0.4);

      const stopped = await api(api1, 'DELETE', `/bots/google_meet/${meeting.id}`);
      expect(stopped.status, stopped.text).toBe(202);
      await waitFor('the bot container to be removed', 120_000, async () =>
        (await botContainers()).length === 0 ? true : undefined,
      );
      const { body: final } = await api(api2, 'GET', `/meetings/${meetingId}`);
      expect(final.status).toBe('completed');
      // The worker wrote the recording into the shared volume; the other API replica serves it.
      const recording = await waitFor('the recording to be ready', 60_000, async () => {
        const { body } = await api(api2, 'GET', `/meetings/${meetingId}`);
        const [first] = (body?.recordings ?? []) as Array<{ state: string; size: number; media_url: string }>;
        return first?.state === 'ready' ? first : undefined;
      });
      const media = await fetch(
        `${api1}${new URL(recording.media_url).pathname}${new URL(recording.media_url).search}`,
      );
      expect(media.status).toBe(200);
      expect((await media.arrayBuffer()).byteLength).toBe(recording.size);

      // Postgres, Redis and the recordings.
      expect((await projectVolumes()).map((volume) => volume.Name.replace(/^.*_/, '')).sort()).toEqual([
        'postgres-data',
        'recordings',
        'redis-data',
      ]);
      await composeScript('compose-down.sh', ['--volumes'], 180_000);
      expect(await projectContainers()).toEqual([]);
      expect(await projectVolumes()).toEqual([]);
      expect(await botContainers()).toEqual([]);
    },
    10 * 60_000,
  );
});
