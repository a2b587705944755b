import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleEvent } from '../../../shared/contract/events.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botSessionStream } from '../../../shared/contract/streams.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { type Stack, startStack } from '../../support/stack.js';

/**
 * Chromium's own sandbox inside a bot container launched by a real worker: the renderer that runs
 * the meeting page sits in its own user, PID and network namespaces under a seccomp filter of its
 * own, read from /proc inside the container (docker exec), with both Chromium builds and on both
 * platforms; the bot still joins and transcribes. BOT_CHROMIUM_SANDBOX=off is the control: there
 * the same probe finds the renderer in the browser's namespaces with the container's filter alone.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
});

/** One Chromium process as /proc inside the container shows it. */
interface ChromiumProcess {
  pid: number;
  /** `browser` for the process without --type, else its --type (renderer, zygote, utility…). */
  type: string;
  /** Seccomp mode (2: filtered) and how many filters are stacked on the process. */
  seccomp: number;
  seccompFilters: number;
  namespaces: { user: string; pid: string; net: string };
}

/** Runs in the container (its node) as the container's user: every Chromium process's status and namespaces. */
const PROBE = `
const { readdirSync, readFileSync, readlinkSync } = require('node:fs');
const out = [];
for (const pid of readdirSync('/proc').filter((name) => /^\\d+$/.test(name))) {
  try {
    const cmdline = readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ');
    if (!/^\\S*\\/(chromium|chromium-headless-shell)( |$)/.test(cmdline)) continue;
    const status = readFileSync('/proc/' + pid + '/status', 'utf8');
    const field = (name) => Number(new RegExp('^' + name + ':\\\\s+(\\\\d+)', 'm').exec(status)[1]);
    const ns = (kind) => readlinkSync('/proc/' + pid + '/ns/' + kind);
    out.push({
      pid: Number(pid),
      type: (/--type=([a-z-]+)/.exec(cmdline) || [null, 'browser'])[1],
      seccomp: field('Seccomp'),
      seccompFilters: field('Seccomp_filters'),
      namespaces: { user: ns('user'), pid: ns('pid'), net: ns('net') },
    });
  } catch (error) {
    // a process that ended between the listing and the read
  }
}
console.log(JSON.stringify(out));
`;

/** Runs a command in a running container and returns its stdout (stderr in the error when it fails). */
async function execIn(container: Docker.Container, cmd: string[]): Promise<string> {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const collected = { stdout: '', stderr: '' };
  stdout.on('data', (chunk: Buffer) => {
    collected.stdout += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    collected.stderr += chunk.toString('utf8');
  });
  stack.docker.modem.demuxStream(stream, stdout, stderr);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) throw new Error(`${cmd.join(' ')} exited ${ExitCode}: ${collected.stderr}`);
  return collected.stdout;
}

async function chromiumProcesses(container: Docker.Container): Promise<ChromiumProcess[]> {
  const lines = (await execIn(container, ['node', '-e', PROBE])).trim().split('\n');
  return JSON.parse(lines.at(-1)!) as ChromiumProcess[];
}

const SPEAKER = 'Alice Archer';

/** A bot of a worker with `env` joins a meeting and hears one utterance; its container, in the call. */
async function botInCall(platform: 'google_meet' | 'teams', workerId: string, env: Record<string, string>) {
  const worker = stack.startWorker(workerId, env);
  const { meetingId, nativeId } = await stack.createMeetingAndBot({
    platform,
    admission: { policy: 'after', delaySeconds: 1 },
    participants: [
      {
        name: SPEAKER,
        voice: 'slt',
        utterances: [{ at: 2, text: 'good morning everyone and welcome to the weekly review' }],
      },
    ],
  });
  const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
  expect(seen.at(-1), worker.output().slice(-3000)).toBe('active');
  const [info] = await stack.containersOf(meetingId);
  const container = stack.docker.getContainer(info!.Id);
  return {
    container,
    /** The transcript has a segment from the speaker: the page's audio reached the recognizer. */
    async heard() {
      await expect
        .poll(
          async () => {
            const response = await stack.api.request('GET', `/transcripts/${platform}/${nativeId}`, {
              key: stack.user.key,
            });
            return (response.body.segments ?? []).map((segment: { speaker: string }) => segment.speaker);
          },
          { timeout: 90_000, interval: 500 },
        )
        .toContain(SPEAKER);
    },
    async end() {
      await stack.api.request('DELETE', `/bots/${platform}/${nativeId}`, { key: stack.user.key });
      await stack.waitForStatus(meetingId, ['completed', 'failed'], 120_000);
      await stack.stopWorker(worker);
    },
  };
}

function split(processes: ChromiumProcess[]) {
  const browsers = processes.filter((process) => process.type === 'browser');
  const renderers = processes.filter((process) => process.type === 'renderer');
  expect(browsers, JSON.stringify(processes)).toHaveLength(1);
  expect(renderers.length, JSON.stringify(processes)).toBeGreaterThan(0);
  return { browser: browsers[0]!, renderers };
}

describe("Chromium's sandbox in a bot container", () => {
  it.each([
    ['google_meet', 'headless_shell'],
    ['teams', 'headless_shell'],
    ['google_meet', 'full'],
  ] as const)(
    '%s, %s Chromium: the renderer runs in its own namespaces under its own seccomp filter',
    async (platform, build) => {
      const bot = await botInCall(platform, `sandbox-${platform}-${build}`, { BOT_CHROMIUM: build });
      try {
        const inspected = await bot.container.inspect();
        expect(inspected.HostConfig.SecurityOpt).toEqual(
          expect.arrayContaining(['no-new-privileges', expect.stringMatching(/^seccomp=\{/)]),
        );
        expect(inspected.HostConfig.CapDrop).toEqual(['ALL']);

        const { browser, renderers } = split(await chromiumProcesses(bot.container));
        // The container's profile filters the browser already; a sandboxed renderer adds Chromium's own.
        expect(browser.seccomp).toBe(2);
        for (const renderer of renderers) {
          expect(renderer.seccomp).toBe(2);
          expect(renderer.seccompFilters).toBeGreaterThan(browser.seccompFilters);
          expect(renderer.namespaces.user).not.toBe(browser.namespaces.user);
          expect(renderer.namespaces.pid).not.toBe(browser.namespaces.pid);
          expect(renderer.namespaces.net).not.toBe(browser.namespaces.net);
        }
        await bot.heard();
      } finally {
        await bot.end();
      }
    },
  );

  it('BOT_CHROMIUM_SANDBOX=off: the renderer shares the browser’s namespaces and filter (the probe tells them apart)', async () => {
    const bot = await botInCall('google_meet', 'sandbox-off', { BOT_CHROMIUM_SANDBOX: 'off' });
    try {
      const inspected = await bot.container.inspect();
      expect(inspected.HostConfig.SecurityOpt).toEqual(['no-new-privileges']);

      const processes = await chromiumProcesses(bot.container);
      const { browser, renderers } = split(processes);
      // No zygote without the sandbox (--no-zygote), as before.
      expect(processes.map((process) => process.type)).not.toContain('zygote');
      for (const renderer of renderers) {
        expect(renderer.seccompFilters).toBe(browser.seccompFilters);
        expect(renderer.namespaces).toEqual(browser.namespaces);
      }
      await bot.heard();
    } finally {
      await bot.end();
    }
  });

  it('on an engine that denies the namespaces (its default profile), the bot fails at once and names the setting', async () => {
    const prefix = uniquePrefix('sandbox-denied');
    const sessionId = randomUUID();
    const meeting = await stack.simulator.createMeeting({ platform: 'google_meet', participants: [] });
    // The bot's config and container as the worker makes them, but under the engine's default profile.
    const container = await stack.docker.createContainer({
      Image: process.env.BOT_IMAGE ?? 'meetbot/bot:latest',
      Env: [
        `BOT_CONFIG=${JSON.stringify({
          meetingId: 4_242_000 + Math.floor(Math.random() * 1000),
          sessionId,
          platform: 'google_meet',
          meetingUrl: meeting.url,
          botName: 'Notetaker',
          language: 'en',
          redisUrl: TEST_REDIS_URL,
          streamPrefix: prefix,
          streams: 'own',
          extraAllowedOrigins: [stack.simulatorUrl],
          browser: { sandbox: true },
        })}`,
      ],
      Labels: { 'org.meetbot.test': 'chromium-sandbox' },
      HostConfig: {
        NetworkMode: 'host',
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        ShmSize: 256 * 1024 * 1024,
        Init: true,
      },
    });
    const redis = createTestRedis();
    try {
      await container.start();
      const { StatusCode } = (await container.wait()) as { StatusCode: number };
      expect(StatusCode).not.toBe(0);
      const events = await redis.xrange(botSessionStream(prefix, sessionId, 'events'), '-', '+');
      const [, fields] = events.at(-1)!;
      const event = decodeStreamEntry(lifecycleEvent, fields);
      expect(event.ok && event.value).toMatchObject({ sessionId, status: 'failed', reason: 'crashed' });
      const detail = event.ok && event.value.status === 'failed' ? (event.value.detail ?? '') : '';
      expect(detail).toContain("Chromium's sandbox could not start");
      expect(detail).toContain('BOT_CHROMIUM_SANDBOX=off');
    } finally {
      await container.remove({ force: true }).catch(() => {});
      await deleteKeys(redis, prefix);
      redis.disconnect();
    }
  });
});
