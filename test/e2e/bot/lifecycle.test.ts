import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SimulatorClient as Client,
  type CreateMeetingInput,
  type SimulatorClient,
} from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import {
  botEvents,
  type RunningBot,
  sendCommand,
  startBot,
  statusTrail,
  waitForStatus,
} from './bot-harness.js';

const prefix = uniquePrefix('bot-lifecycle');
const redis = createTestRedis();
const PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
type Platform = (typeof PLATFORMS)[number];

/** Every trap the platform has, so each scenario also proves the drivers get past them. */
function traps(platform: Platform): CreateMeetingInput['traps'] {
  if (platform === 'google_meet') {
    return {
      sharedControls: true,
      recordingDialog: true,
      resetTogglesOnAdmission: true,
      toolbarAutoHideSeconds: 2,
      leaveConfirmation: true,
    };
  }
  // Zoom: the landing page (the meeting's URL is the invitation link), the host starting late, the
  // "Join Audio" dialog; its Leave always asks "Leave Meeting".
  if (platform === 'zoom') return { hostStartsAfterSeconds: 1, joinAudioDialog: true };
  return { sharedControls: true, noAudioVideoModal: true, midJoinReload: true, leaveConfirmation: true };
}

const ALICE = { name: 'Alice Example' };

// Two scenarios at a time (the e2e project's maxConcurrency): each has its own meeting and bot, and
// they mostly wait on the bot's timers.
describe.concurrent.each(PLATFORMS)('the bot on %s', (platform) => {
  let simulator: Simulator;
  let client: SimulatorClient;
  const bots: RunningBot[] = [];

  beforeAll(async () => {
    simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
    client = new Client(simulator.url);
  });

  afterAll(async () => {
    for (const bot of bots) bot.signal('SIGKILL');
    await simulator?.close();
  });

  async function run(
    input: Omit<CreateMeetingInput, 'platform'>,
    overrides: Parameters<typeof startBot>[0] extends infer T ? Partial<T> : never = {},
  ) {
    const meeting = await client.createMeeting({ platform, traps: traps(platform), ...input });
    const bot = startBot({ platform, meetingUrl: meeting.url, ...overrides }, prefix, simulator.url);
    bots.push(bot);
    return { meeting, bot };
  }

  async function finish(bot: RunningBot) {
    const code = await bot.exited;
    return { code, trail: statusTrail(await botEvents(redis, prefix, bot.config.sessionId)) };
  }

  it('waits in the lobby until admitted, then leaves with the meeting when the host ends it', async () => {
    const { meeting, bot } = await run({ admission: { policy: 'host' }, participants: [ALICE] });
    await client.waitForBotState(meeting.id, 'lobby', { timeoutMs: 90_000 });
    // Long enough in the lobby for several looks at it: it must not be mistaken for the call.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(statusTrail(await botEvents(redis, prefix, bot.config.sessionId))).toEqual([
      'joining',
      'awaiting_admission',
    ]);
    await client.admit(meeting.id);
    await waitForStatus(redis, prefix, bot, 'active');
    const inCall = await client.waitForBotState(meeting.id, 'in_call');
    expect(inCall.bot.name).toBe('Meetbot Notetaker');
    // Meet switches the microphone back on at admission (trap); the bot turns it off again.
    await client.waitFor(meeting.id, (m) => m.bot.micOn === false, 'the bot to turn its microphone off', {
      timeoutMs: 20_000,
    });
    await client.endMeeting(meeting.id);
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'active', 'completed:meeting_ended']);
    expect(code).toBe(0);
    const final = await client.getMeeting(meeting.id);
    expect(final.bot.state).toBe('ended');
    expect(final.bot.micOn).toBe(false);
  });

  it('joins an open meeting with "Join now" and leaves once everyone else has left', async () => {
    const { meeting, bot } = await run(
      { admission: { policy: 'open' }, participants: [ALICE] },
      { automaticLeave: { aloneSeconds: 3 } },
    );
    await waitForStatus(redis, prefix, bot, 'active');
    await client.waitForBotState(meeting.id, 'in_call');
    // Give the bot a few looks at the call with Alice in it: leaving alone needs someone to have been there.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await client.everyoneLeaves(meeting.id);
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'active', 'completed:left_alone']);
    expect(code).toBe(0);
    const final = await client.getMeeting(meeting.id);
    expect(final.bot.history.map((entry) => entry.state)).not.toContain('lobby');
    expect(final.bot.state).toBe('left');
    expect(final.bot.leaveReason).toBe('leave_button');
  });

  it('leaves on its own when nobody has spoken for its silence limit', async () => {
    const { meeting, bot } = await run(
      { admission: { policy: 'open' }, participants: [ALICE] },
      { automaticLeave: { silenceSeconds: 4 } },
    );
    await waitForStatus(redis, prefix, bot, 'active');
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'active', 'completed:silence']);
    expect(code).toBe(0);
    expect((await client.getMeeting(meeting.id)).bot.leaveReason).toBe('leave_button');
  });

  it('leaves on its own at its maximum duration even while people talk', async () => {
    const { meeting, bot } = await run(
      {
        admission: { policy: 'open' },
        participants: [
          {
            ...ALICE,
            voice: 'slt',
            utterances: [
              { at: 1, text: 'we keep talking' },
              { at: 4, text: 'and talking' },
            ],
          },
        ],
      },
      { automaticLeave: { maxDurationSeconds: 5, silenceSeconds: 60 } },
    );
    await waitForStatus(redis, prefix, bot, 'active');
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'active', 'completed:max_duration']);
    expect(code).toBe(0);
    expect((await client.getMeeting(meeting.id)).bot.leaveReason).toBe('leave_button');
  });

  it('reports a denial', async () => {
    const { meeting, bot } = await run({
      admission: { policy: 'deny', delaySeconds: 2 },
      participants: [ALICE],
    });
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'failed:admission_denied']);
    expect(code).not.toBe(0);
    expect((await client.getMeeting(meeting.id)).bot.state).toBe('denied');
  });

  it('gives up waiting in the lobby at its admission timeout and leaves the lobby', async () => {
    const { meeting, bot } = await run(
      { admission: { policy: 'host' }, participants: [ALICE] },
      { automaticLeave: { admissionTimeoutSeconds: 8 } },
    );
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'failed:admission_timeout']);
    expect(code).not.toBe(0);
    const final = await client.getMeeting(meeting.id);
    expect(final.bot.history.map((entry) => entry.state)).toContain('lobby');
    expect(final.bot.state).toBe('left');
  });

  it('reports being removed by the host', async () => {
    const { meeting, bot } = await run({
      admission: { policy: 'after', delaySeconds: 1 },
      participants: [ALICE],
    });
    await waitForStatus(redis, prefix, bot, 'active');
    await client.removeBot(meeting.id);
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'active', 'completed:removed']);
    expect(code).toBe(0);
    expect((await client.getMeeting(meeting.id)).bot.state).toBe('removed');
  });

  it('leaves through the call controls on a leave command', async () => {
    const { meeting, bot } = await run({
      admission: { policy: 'after', delaySeconds: 1 },
      participants: [ALICE],
    });
    await waitForStatus(redis, prefix, bot, 'active');
    await client.waitForBotState(meeting.id, 'in_call');
    await sendCommand(redis, prefix, bot.config.meetingId, {
      type: 'leave',
      reason: 'stopped',
      issuedAt: new Date().toISOString(),
    });
    const { code, trail } = await finish(bot);
    expect(trail).toEqual(['joining', 'awaiting_admission', 'active', 'completed:stopped']);
    expect(code).toBe(0);
    const final = await client.getMeeting(meeting.id);
    expect(final.bot.state).toBe('left');
    expect(final.bot.leaveReason).toBe('leave_button');
  });
});

describe('the bot process', () => {
  let simulator: Simulator;
  let client: SimulatorClient;

  beforeAll(async () => {
    simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
    client = new Client(simulator.url);
  });

  afterAll(async () => {
    await simulator?.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('leaves gracefully on SIGTERM', async () => {
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'open' },
      participants: [ALICE],
    });
    const bot = startBot({ platform: 'google_meet', meetingUrl: meeting.url }, prefix, simulator.url);
    await waitForStatus(redis, prefix, bot, 'active');
    bot.signal('SIGTERM');
    expect(await bot.exited).toBe(0);
    expect(statusTrail(await botEvents(redis, prefix, bot.config.sessionId))).toEqual([
      'joining',
      'awaiting_admission',
      'active',
      'completed:stopped',
    ]);
    const final = await client.waitFor(meeting.id, (m) => m.bot.state === 'left', 'the bot to leave', {
      timeoutMs: 10_000,
    });
    expect(final.bot.leaveReason).toBe('leave_button');
  });

  it('fails fast on an invalid config, telling the workers why when it knows where to', async () => {
    const sessionId = randomUUID();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bot/main.ts'], {
      cwd: new URL('../../../', import.meta.url).pathname,
      env: {
        ...process.env,
        BOT_CONFIG: JSON.stringify({
          meetingId: 4242,
          sessionId,
          platform: 'webex',
          meetingUrl: 'not a url',
          redisUrl: TEST_REDIS_URL,
          streamPrefix: prefix,
          // As workers send it: the bot reports on its own streams, where the harness reads.
          streams: 'own',
        }),
      },
      stdio: 'ignore',
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    const events = await botEvents(redis, prefix, sessionId);
    expect(statusTrail(events)).toEqual(['failed:invalid_config']);
    const detail = 'detail' in events[0]! ? events[0].detail : '';
    expect(detail).toContain('platform');
    expect(detail).toContain('meetingUrl');
    expect(detail).toContain('botName');
  });

  it('fails with meeting_unreachable when nothing answers at the meeting URL', async () => {
    // A loopback port that was just free: nothing listens, the connection is refused.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const bot = startBot(
      {
        platform: 'google_meet',
        meetingUrl: `http://127.0.0.1:${port}/abc-defg-hij`,
        extraAllowedOrigins: [`http://127.0.0.1:${port}`],
      },
      prefix,
      simulator.url,
    );
    expect(await bot.exited).toBe(1);
    const events = await botEvents(redis, prefix, bot.config.sessionId);
    expect(statusTrail(events)).toEqual(['failed:meeting_unreachable']);
    expect(events.at(-1)).toMatchObject({
      detail: 'the meeting page could not be loaded (ERR_CONNECTION_REFUSED)',
    });
  });

  it('refuses a meeting URL outside the allowed hosts before opening it', async () => {
    const bot = startBot(
      { platform: 'google_meet', meetingUrl: 'https://accounts.google.com/signin', extraAllowedOrigins: [] },
      prefix,
      simulator.url,
    );
    expect(await bot.exited).toBe(1);
    expect(statusTrail(await botEvents(redis, prefix, bot.config.sessionId))).toEqual([
      'failed:sign_in_required',
    ]);
  });
});
