import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisBotCommands } from '../../../shared/bots/command-channel.js';
import { bullBotJobs } from '../../../shared/bots/jobs.js';
import { BOT_CONFIG_ENV, botConfigSchema } from '../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../shared/infra/config.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { transitionMeeting } from '../../../shared/meetings/transitions.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { BotFleet } from '../../../worker/bot-fleet.js';
import { applyBotEnd, joinRetryOf } from '../../../worker/bot-outcome.js';
import { closeBotSession } from '../../../worker/bot-sessions.js';
import { domainEvents } from '../../../worker/domain-events.js';
import { launchBot } from '../../../worker/jobs/launch-bot.js';
import { WorkerMetrics } from '../../../worker/metrics.js';
import { createBotCredentials } from '../../../worker/runtime/bot-credentials.js';
import type { BotContainerSpec, BotRuntime } from '../../../worker/runtime/bot-runtime.js';
import type { WorkerDeps } from '../../../worker/worker-deps.js';
import { ADMIN_KEY, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { createTestRedis } from '../../support/redis.js';

// Signed-in bots at launch, against the real API, Postgres and Redis: the worker's launch job as
// worker/main.ts runs it, with a container runtime that only records what it was asked to start.

const SECRET = `secret-cookie-${randomBytes(8).toString('hex')}`;
const KEY = randomBytes(32).toString('base64');
const MAX_BOTS = 2;
const admin = { adminKey: ADMIN_KEY };

const specs: BotContainerSpec[] = [];
const logLines: string[] = [];
let api: TestApi;
let deps: WorkerDeps;
let user: TestUser;
let metrics: Registry;

function recordingRuntime(): BotRuntime {
  return {
    async start(spec) {
      specs.push(spec);
      // Another launch's take runs while this one "starts its container".
      await new Promise((resolve) => setTimeout(resolve, 20));
      return `container-${spec.labels['meetbot.session-id']}`;
    },
    inspect: async () => undefined,
    list: async () => [],
    stop: async () => undefined,
    remove: async () => undefined,
    logsTail: async () => '',
    usage: async () => undefined,
    onExit: async () => () => undefined,
  };
}

async function registerAccount(platform: 'google_meet' | 'teams', name: string, secret = SECRET) {
  const response = await api.request('POST', '/admin/bot-accounts', {
    ...admin,
    json: {
      platform,
      display_name: name,
      storage_state: { cookies: [{ name: 'SID', value: secret, domain: '127.0.0.1' }] },
    },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as number;
}

let counter = 0;
async function signedInMeeting(platform: 'google_meet' | 'teams' = 'teams') {
  counter += 1;
  const nativeMeetingId =
    platform === 'teams'
      ? String(700_000_000_000 + counter)
      : `acc-defg-${'abcdefghijklmnopqrstuvwxyz'[counter % 26]}${'abcdefghijklmnopqrstuvwxyz'[Math.floor(counter / 26) % 26]}a`;
  const response = await api.request('POST', '/bots', {
    key: user.key,
    json: {
      platform,
      native_meeting_id: nativeMeetingId,
      ...(platform === 'teams' && { passcode: 'pass' }),
      authenticated: true,
    },
  });
  expect(response.status, response.text).toBe(201);
  return { meetingId: response.body.id as number, userId: user.id, platform, nativeMeetingId };
}

async function accountStatus(id: number) {
  return (await api.request('GET', `/admin/bot-accounts/${id}`, admin)).body;
}

beforeAll(async () => {
  api = await startTestApi({ env: { BOT_ACCOUNT_KEY: KEY } });
  user = await api.createUser({ maxConcurrentBots: 100 });
  const config = parseConfig({
    DATABASE_URL: api.database.url,
    REDIS_URL: api.config.REDIS_URL,
    QUEUE_PREFIX: api.prefix,
    WORKER_ID: 'accounts-w1',
    BOT_ACCOUNT_KEY: KEY,
    BOT_ACCOUNT_MAX_BOTS: String(MAX_BOTS),
    LOG_LEVEL: 'trace',
  });
  const redis = createTestRedis(config.REDIS_URL);
  const registry = new Registry();
  const log = pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  deps = {
    config,
    db: api.database.db,
    redis,
    runtime: recordingRuntime(),
    credentials: createBotCredentials(redis, config),
    fleet: new BotFleet(100),
    log,
    metrics: {
      relaunches: new Counter({ name: 'r', help: 'h', labelNames: ['outcome'], registers: [registry] }),
      launchDuration: new Histogram({ name: 'l', help: 'h', registers: [registry] }),
    },
    jobs: bullBotJobs(api.queues),
    commands: redisBotCommands(redis, api.prefix),
    announce: async () => undefined,
  };
  metrics = new Registry();
  new WorkerMetrics(metrics, {
    fleet: deps.fleet,
    runtime: deps.runtime,
    db: api.database.db,
    workerId: 'accounts-w1',
    log,
  });
});

afterAll(async () => {
  for (const spec of specs) {
    await closeBotSession(deps, spec.labels['meetbot.session-id']!).catch(() => undefined);
  }
  deps?.redis.disconnect();
  await api?.close();
});

describe('a signed-in launch', () => {
  it('never gives an account more than BOT_ACCOUNT_MAX_BOTS bots, however many launch at once', async () => {
    const accounts = [
      await registerAccount('teams', 'Teams One'),
      await registerAccount('teams', 'Teams Two'),
    ];
    const meetings = await Promise.all(Array.from({ length: 10 }, () => signedInMeeting('teams')));
    const outcomes = await Promise.all(meetings.map((meeting) => launchBot(deps, meeting)));

    const launched = outcomes.filter((outcome) => outcome.launched);
    expect(launched).toHaveLength(accounts.length * MAX_BOTS);
    const used = await api.database
      .db('meetings')
      .whereIn(
        'id',
        meetings.map((meeting) => meeting.meetingId),
      )
      .whereNotNull('bot_account_id')
      .groupBy('bot_account_id')
      .select('bot_account_id')
      .count({ count: '*' });
    expect(used.map((row) => Number(row.count))).toEqual([MAX_BOTS, MAX_BOTS]);
    for (const id of accounts) expect((await accountStatus(id)).bots_in_use).toBe(MAX_BOTS);

    // The others failed with a clear reason on their events.
    const refused = meetings.filter((_meeting, index) => !outcomes[index]!.launched);
    expect(refused).toHaveLength(10 - accounts.length * MAX_BOTS);
    for (const meeting of refused) {
      const events = await api.request('GET', `/meetings/${meeting.meetingId}/events`, { key: user.key });
      expect(events.body.events.at(-1)).toMatchObject({
        to: 'failed',
        source: 'worker',
        reason: 'no_bot_account_available',
      });
      expect(events.body.events.at(-1).detail).toMatch(/BOT_ACCOUNT_MAX_BOTS \(2\)/);
    }

    // Each started bot joins as its account, its session in a file and nowhere inspect shows.
    const started = specs.filter((spec) =>
      meetings.some((meeting) => String(meeting.meetingId) === spec.labels['meetbot.meeting-id']),
    );
    expect(started).toHaveLength(accounts.length * MAX_BOTS);
    for (const spec of started) {
      expect(JSON.stringify({ env: spec.env, labels: spec.labels })).not.toContain(SECRET);
      const config = botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!));
      expect(['Teams One', 'Teams Two']).toContain(config.botName);
      expect(config.signedIn).toBeDefined();
      expect(spec.files?.[0]?.content.toString('utf8')).toContain(SECRET);
    }

    // A meeting that ends gives its account back: the next launch takes it.
    const ended = meetings.find((_meeting, index) => outcomes[index]!.launched)!;
    await transitionMeeting(api.database.db, domainEvents, ended.meetingId, {
      to: 'failed',
      source: 'bot',
      reason: 'crashed',
    });
    const next = await signedInMeeting('teams');
    expect(await launchBot(deps, next)).toMatchObject({ launched: true });
    await api.database.db('meetings').where('platform', 'teams').update({ status: 'completed' });
  });

  it('with BOT_ACCOUNT_FALLBACK, an anonymous bot refused for sign-in comes back at once signed in', async () => {
    const queued: unknown[] = [];
    const joinRetries = new Counter({
      name: 'join_retries_fallback_test',
      help: 'h',
      labelNames: ['platform', 'reason', 'kind'],
      registers: [new Registry()],
    });
    const retry = (fallback: boolean) =>
      joinRetryOf({
        config: { ...deps.config, BOT_ACCOUNT_FALLBACK: fallback },
        jobs: { launch: async (payload) => void queued.push(payload) },
        metrics: { joinRetries },
      });
    const signInRefusal = {
      status: 'failed' as const,
      reason: 'sign_in_required',
      detail: '"Sign in to join this meeting"',
      source: 'bot',
    };
    const anonymousTeamsBot = async (nativeMeetingId: string) => {
      const response = await api.request('POST', '/bots', {
        key: user.key,
        json: { platform: 'teams', native_meeting_id: nativeMeetingId, passcode: 'pass' },
      });
      expect(response.status, response.text).toBe(201);
      const meeting = {
        meetingId: response.body.id as number,
        userId: user.id,
        platform: 'teams' as const,
        nativeMeetingId,
      };
      expect(await launchBot(deps, meeting)).toMatchObject({ launched: true });
      return { meeting, sessionId: specs.at(-1)!.labels['meetbot.session-id']! };
    };

    // Without the setting the refusal ends the meeting, as it always did.
    const plain = await anonymousTeamsBot('722222222222');
    const log = deps.log;
    expect(
      await applyBotEnd(
        { db: api.database.db, log, retry: retry(false) },
        plain.meeting.meetingId,
        plain.sessionId,
        signInRefusal,
      ),
    ).toBe('ended');
    expect(await findMeetingById(api.database.db, plain.meeting.meetingId)).toMatchObject({
      status: 'failed',
      authenticated: false,
    });

    const { meeting, sessionId } = await anonymousTeamsBot('733333333333');
    expect(
      await applyBotEnd(
        { db: api.database.db, log, retry: retry(true) },
        meeting.meetingId,
        sessionId,
        signInRefusal,
      ),
    ).toBe('retrying');
    const waiting = await findMeetingById(api.database.db, meeting.meetingId);
    expect(waiting).toMatchObject({
      status: 'requested',
      authenticated: true,
      launchSessionId: null,
      joinRetries: 1,
    });
    expect(queued).toEqual([expect.objectContaining({ meetingId: meeting.meetingId, retry: 1 })]);
    const events = (await api.request('GET', `/meetings/${meeting.meetingId}/events`, { key: user.key })).body
      .events;
    expect(events.at(-1)).toMatchObject({ from: 'requested', to: 'requested', reason: 'sign_in_required' });
    expect(events.at(-1).detail).toMatch(/signed-in bot \(BOT_ACCOUNT_FALLBACK\)/);
    expect(await joinRetries.get()).toMatchObject({
      values: [
        { value: 1, labels: { platform: 'teams', reason: 'sign_in_required', kind: 'account_fallback' } },
      ],
    });

    // The retry's launch signs in with an account of the pool.
    expect(await launchBot(deps, { ...meeting, retry: 1 })).toMatchObject({ launched: true });
    expect((await findMeetingById(api.database.db, meeting.meetingId))?.botAccountId).not.toBeNull();
    const spec = specs.at(-1)!;
    expect(spec.files).toHaveLength(1);
    expect(botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!)).signedIn).toBeDefined();

    // A signed-in bot never falls back again: its sign-in screen is sign_in_expired.
    const second = spec.labels['meetbot.session-id']!;
    expect(
      await applyBotEnd(
        { db: api.database.db, log, retry: retry(true) },
        meeting.meetingId,
        second,
        signInRefusal,
      ),
    ).toBe('ended');
    expect(queued).toHaveLength(1);
  });

  it('with BOT_ACCOUNT_FALLBACK, a platform without an active account keeps the refusal', async () => {
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: { platform: 'google_meet', native_meeting_id: 'fbk-defg-hij' },
    });
    const meeting = {
      meetingId: response.body.id as number,
      userId: user.id,
      platform: 'google_meet' as const,
      nativeMeetingId: 'fbk-defg-hij',
    };
    expect(await launchBot(deps, meeting)).toMatchObject({ launched: true });
    const sessionId = specs.at(-1)!.labels['meetbot.session-id']!;
    const retry = joinRetryOf({
      config: { ...deps.config, BOT_ACCOUNT_FALLBACK: true },
      jobs: { launch: async () => undefined },
    });
    expect(
      await applyBotEnd({ db: api.database.db, log: deps.log, retry }, meeting.meetingId, sessionId, {
        status: 'failed',
        reason: 'sign_in_required',
        detail: '',
        source: 'bot',
      }),
    ).toBe('ended');
    expect(await findMeetingById(api.database.db, meeting.meetingId)).toMatchObject({ status: 'failed' });
  });

  it('fails at once with no_bot_account_available when the platform has no active account', async () => {
    const meeting = await signedInMeeting('google_meet');
    expect(await launchBot(deps, meeting)).toEqual({ launched: false, reason: 'no_bot_account_available' });
    const row = await findMeetingById(api.database.db, meeting.meetingId);
    expect(row?.status).toBe('failed');
    const [last] = (await listTransitions(api.database.db, meeting.meetingId)).slice(-1);
    expect(last).toMatchObject({ reason: 'no_bot_account_available' });
    expect(last?.detail).toMatch(/no active bot account for google_meet/);
  });

  it('sign_in_expired marks the account expired, out of the pool, with an event and the gauge', async () => {
    const id = await registerAccount('google_meet', 'Meet Bot');
    const meeting = await signedInMeeting('google_meet');
    expect(await launchBot(deps, meeting)).toMatchObject({ launched: true });
    expect(await metrics.getSingleMetricAsString('meetbot_bot_accounts')).toContain(
      'meetbot_bot_accounts{platform="google_meet",status="active"} 1',
    );

    // What the ingester does with the bot's final event.
    await transitionMeeting(api.database.db, domainEvents, meeting.meetingId, {
      to: 'failed',
      source: 'bot',
      reason: 'sign_in_expired',
      detail: 'the bot account\'s session no longer signs in: "Sign in" screen',
    });
    expect(await accountStatus(id)).toMatchObject({
      status: 'expired',
      status_reason: 'sign_in_expired',
      bots_in_use: 0,
    });
    const events = (await api.request('GET', `/meetings/${meeting.meetingId}/events`, { key: user.key })).body
      .events;
    expect(events.slice(-2)).toMatchObject([
      { to: 'failed', reason: 'sign_in_expired', source: 'bot' },
      { from: 'failed', to: 'failed', reason: 'bot_account_expired', source: 'worker' },
    ]);
    expect(events.at(-1).detail).toMatch(new RegExp(`bot account ${id} .*Meet Bot`));
    const gauge = await metrics.getSingleMetricAsString('meetbot_bot_accounts');
    expect(gauge).toContain('meetbot_bot_accounts{platform="google_meet",status="active"} 0');
    expect(gauge).toContain('meetbot_bot_accounts{platform="google_meet",status="expired"} 1');

    // Out of the pool: the next signed-in bot for Meet finds none.
    const next = await signedInMeeting('google_meet');
    expect(await launchBot(deps, next)).toEqual({ launched: false, reason: 'no_bot_account_available' });
    // A new session puts it back.
    await api.request('PATCH', `/admin/bot-accounts/${id}`, {
      ...admin,
      json: { storage_state: { cookies: [{ name: 'SID', value: SECRET, domain: '127.0.0.1' }] } },
    });
    expect(await accountStatus(id)).toMatchObject({ status: 'active', status_reason: null });
    expect(await launchBot(deps, await signedInMeeting('google_meet'))).toMatchObject({ launched: true });
  });

  it('an anonymous bot takes no account', async () => {
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: { platform: 'teams', native_meeting_id: '711111111111', passcode: 'pass' },
    });
    const meeting = {
      meetingId: response.body.id as number,
      userId: user.id,
      platform: 'teams' as const,
      nativeMeetingId: '711111111111',
    };
    expect(await launchBot(deps, meeting)).toMatchObject({ launched: true });
    expect((await findMeetingById(api.database.db, meeting.meetingId))?.botAccountId).toBeNull();
    const spec = specs.at(-1)!;
    expect(spec.files).toEqual([]);
    expect(botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!)).signedIn).toBeUndefined();
  });

  it('never logs the session', () => {
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});
