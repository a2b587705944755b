import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_CONFIG_ENV,
  BOT_STORAGE_STATE_FILE,
  botConfigSchema,
} from '../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../shared/infra/config.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { transitionMeeting } from '../../../shared/meetings/transitions.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import { applyBotEnd, joinRetryOf } from '../../../worker/retries/bot-outcome.js';
import { setBotAccountExpiryUsers } from '../../../worker/accounts/bot-account-expiry.js';
import { closeBotSession } from '../../../worker/fleet/bot-sessions.js';
import { domainEvents } from '../../../worker/events/domain-events.js';
import { launchBot } from '../../../worker/jobs/launch-bot.js';
import { WorkerMetrics } from '../../../worker/metrics/worker-metrics.js';
import type { BotContainerSpec, BotRuntime } from '../../../worker/runtime/bot-runtime.js';
import type { WorkerDeps } from '../../../worker/worker-deps.js';
import { ADMIN_KEY, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { testWorkerDeps } from '../../support/launch-workers.js';
import { createTestRedis } from '../../support/redis.js';

// Signed-in bots at launch, against the real API, Postgres and Redis: the worker's launch job as
// worker/create-worker.ts runs it, with a container runtime that only records what it was asked to start.

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
    sharedAmongWorkers: false,
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

async function registerAccount(platform: 'google_meet' | 'teams' | 'zoom', name: string, secret = SECRET) {
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

/** The signed-in bot's session among the files put into its container (its secrets file is another). */
function sessionFileOf(spec: BotContainerSpec) {
  return spec.files?.find((file) => file.name === BOT_STORAGE_STATE_FILE);
}

let counter = 0;
function nextNativeId(platform: 'google_meet' | 'teams' | 'zoom'): string {
  counter += 1;
  if (platform === 'teams') return String(700_000_000_000 + counter);
  if (platform === 'zoom') return String(80_000_000_000 + counter);
  return `acc-defg-${'abcdefghijklmnopqrstuvwxyz'[counter % 26]}${'abcdefghijklmnopqrstuvwxyz'[Math.floor(counter / 26) % 26]}a`;
}

async function signedInMeeting(
  platform: 'google_meet' | 'teams' | 'zoom' = 'teams',
  who: TestUser = user,
  nativeMeetingId = nextNativeId(platform),
) {
  const response = await api.request('POST', '/bots', {
    key: who.key,
    json: {
      platform,
      native_meeting_id: nativeMeetingId,
      ...(platform === 'teams' && { passcode: 'pass' }),
      authenticated: true,
    },
  });
  expect(response.status, response.text).toBe(201);
  return { meetingId: response.body.id as number, userId: who.id, platform, nativeMeetingId };
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
  const log = pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  deps = testWorkerDeps({
    config,
    db: api.database.db,
    redis,
    queues: api.queues,
    runtime: recordingRuntime(),
    log,
    fleet: new BotFleet(100),
  });
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
    // Five users with two bots each: none goes over its share (2 of the pool's 4 places), the pool fills.
    const users = await Promise.all(
      Array.from({ length: 5 }, () => api.createUser({ maxConcurrentBots: 100 })),
    );
    const meetings = await Promise.all(
      Array.from({ length: 10 }, (_unused, index) => signedInMeeting('teams', users[index % users.length])),
    );
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
      const owner = users.find((candidate) => candidate.id === meeting.userId)!;
      const events = await api.request('GET', `/meetings/${meeting.meetingId}/events`, { key: owner.key });
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
      expect(sessionFileOf(spec)?.content.toString('utf8')).toContain(SECRET);
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
    expect(sessionFileOf(spec)).toBeDefined();
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

  it('one user can hold only its share of the pool, however many it launches at once', async () => {
    // A pool of 2 accounts × BOT_ACCOUNT_MAX_BOTS 2 = 4 places: a user may hold floor(0.5 × 4) = 2.
    const accounts = [await registerAccount('zoom', 'Zoom One'), await registerAccount('zoom', 'Zoom Two')];
    const [mallory, bob] = [
      await api.createUser({ maxConcurrentBots: 100 }),
      await api.createUser({ maxConcurrentBots: 100 }),
    ];
    const flood = await Promise.all(Array.from({ length: 6 }, () => signedInMeeting('zoom', mallory!)));
    const floodOutcomes = await Promise.all(flood.map((meeting) => launchBot(deps, meeting)));
    expect(floodOutcomes.filter((outcome) => outcome.launched)).toHaveLength(2);
    for (const [index, meeting] of flood.entries()) {
      if (floodOutcomes[index]!.launched) continue;
      expect(floodOutcomes[index]).toEqual({ launched: false, reason: 'no_bot_account_available' });
      const [last] = (await listTransitions(api.database.db, meeting.meetingId)).slice(-1);
      expect(last).toMatchObject({ to: 'failed', reason: 'no_bot_account_available' });
      expect(last?.detail).toMatch(
        /this user already has 2 signed-in bot\(s\) on zoom, its share of the pool: 2 of 4 place\(s\) \(BOT_ACCOUNT_USER_SHARE 0\.5\)/,
      );
    }

    // Another user still finds places: its own share, then the pool is full.
    const bobs = await Promise.all(Array.from({ length: 3 }, () => signedInMeeting('zoom', bob!)));
    const bobOutcomes = await Promise.all(bobs.map((meeting) => launchBot(deps, meeting)));
    expect(bobOutcomes.filter((outcome) => outcome.launched)).toHaveLength(2);
    for (const id of accounts) expect((await accountStatus(id)).bots_in_use).toBe(2);

    // One of the flood's bots ends: its user may take a place again, and only one.
    const ended = flood.find((_meeting, index) => floodOutcomes[index]!.launched)!;
    await transitionMeeting(api.database.db, domainEvents, ended.meetingId, {
      to: 'completed',
      source: 'bot',
      reason: 'meeting_ended',
    });
    const again = await Promise.all([signedInMeeting('zoom', mallory!), signedInMeeting('zoom', mallory!)]);
    const againOutcomes = await Promise.all(again.map((meeting) => launchBot(deps, meeting)));
    expect(againOutcomes.filter((outcome) => outcome.launched)).toHaveLength(1);

    // BOT_ACCOUNT_USER_SHARE=1 lets one user take the whole pool (here: the place that is left).
    await api.database.db('meetings').where('platform', 'zoom').update({ status: 'completed' });
    const whole = { ...deps, config: { ...deps.config, BOT_ACCOUNT_USER_SHARE: 1 } };
    const all = await Promise.all(Array.from({ length: 5 }, () => signedInMeeting('zoom', mallory!)));
    const allOutcomes = await Promise.all(all.map((meeting) => launchBot(whole, meeting)));
    expect(allOutcomes.filter((outcome) => outcome.launched)).toHaveLength(4);
    await api.database.db('meetings').where('platform', 'zoom').update({ status: 'completed' });
  });

  describe('a bot account is marked expired only on evidence about its session', () => {
    /** A signed-in bot launched for `who` in `nativeMeetingId`. */
    async function launched(who: TestUser, nativeMeetingId = nextNativeId('google_meet')) {
      const meeting = await signedInMeeting('google_meet', who, nativeMeetingId);
      expect(await launchBot(deps, meeting)).toMatchObject({ launched: true });
      return meeting;
    }

    /** The bot meets a sign-in screen (what the ingester applies); the meeting's events after it. */
    async function metSignIn(who: TestUser, meeting: { meetingId: number }) {
      await transitionMeeting(api.database.db, domainEvents, meeting.meetingId, {
        to: 'failed',
        source: 'bot',
        reason: 'sign_in_expired',
        detail: 'signed in as the bot account, the meeting still asked for sign-in: "Sign in" screen',
      });
      return (await api.request('GET', `/meetings/${meeting.meetingId}/events`, { key: who.key })).body
        .events as Array<{ from: string; to: string; reason: string; source: string; detail: string }>;
    }

    async function signInScreen(who: TestUser, nativeMeetingId?: string) {
      return metSignIn(who, await launched(who, nativeMeetingId));
    }

    it("one user's meetings never expire it; a second user's meeting does, with an event and the gauge", async () => {
      const id = await registerAccount('google_meet', 'Meet Bot');
      const mallory = await api.createUser({ maxConcurrentBots: 100 });
      const bob = await api.createUser({ maxConcurrentBots: 100 });
      expect(await metrics.getSingleMetricAsString('meetbot_bot_accounts')).toContain(
        'meetbot_bot_accounts{platform="google_meet",status="active"} 1',
      );

      // Meetings that ask the signed-in bot to sign in (another organisation's, a crafted link),
      // three of them from one user: the account stays in the pool, and each meeting says why.
      for (let round = 1; round <= 3; round += 1) {
        const events = await signInScreen(mallory);
        expect(events.slice(-2)).toMatchObject([
          { to: 'failed', reason: 'sign_in_expired', source: 'bot' },
          { from: 'failed', to: 'failed', reason: 'bot_account_kept', source: 'worker' },
        ]);
        expect(events.at(-1)!.detail).toContain(
          `signed-in bots of 1 user(s) met a sign-in screen with it in ${round} meeting(s) within 24 h`,
        );
        expect(await accountStatus(id)).toMatchObject({ status: 'active', status_reason: null });
      }

      // Another user's meeting shows it too: the session is what fails. Out of the pool.
      const events = await signInScreen(bob);
      expect(await accountStatus(id)).toMatchObject({
        status: 'expired',
        status_reason: 'sign_in_expired',
        bots_in_use: 0,
      });
      expect(events.slice(-2)).toMatchObject([
        { to: 'failed', reason: 'sign_in_expired', source: 'bot' },
        { from: 'failed', to: 'failed', reason: 'bot_account_expired', source: 'worker' },
      ]);
      expect(events.at(-1)!.detail).toMatch(
        new RegExp(
          `bot account ${id} .*Meet Bot.*marked expired: signed-in bots of 2 user\\(s\\) .* in 4 meeting\\(s\\)`,
        ),
      );
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
      await api.database.db('meetings').where('platform', 'google_meet').update({ status: 'completed' });
      expect((await api.request('DELETE', `/admin/bot-accounts/${id}`, admin)).status).toBe(204);
    });

    it('two users in one meeting are one meeting; a replaced session starts the count again', async () => {
      const id = await registerAccount('google_meet', 'Meet Bot Two');
      const [ann, ben] = [
        await api.createUser({ maxConcurrentBots: 100 }),
        await api.createUser({ maxConcurrentBots: 100 }),
      ];
      const shared = nextNativeId('google_meet');
      await signInScreen(ann, shared);
      const sameMeeting = await signInScreen(ben, shared);
      expect(sameMeeting.at(-1)).toMatchObject({ reason: 'bot_account_kept' });
      expect(sameMeeting.at(-1)!.detail).toContain(
        'of 2 user(s) met a sign-in screen with it in 1 meeting(s)',
      );
      expect((await accountStatus(id)).status).toBe('active');

      // The admin sets a new session: what the old one met counts no more. Then two users' endings
      // at once count each other (the account's row is locked while counting): Ann's is recorded but
      // not yet committed when Ben's comes; Ben's waits for it, and counts it.
      await api.request('PATCH', `/admin/bot-accounts/${id}`, {
        ...admin,
        json: { storage_state: { cookies: [{ name: 'SID', value: SECRET, domain: '127.0.0.1' }] } },
      });
      const [annsMeeting, bensMeeting] = [await launched(ann), await launched(ben)];
      const annsEnding = await api.database.db.transaction();
      await transitionMeeting(annsEnding, domainEvents, annsMeeting.meetingId, {
        to: 'failed',
        source: 'bot',
        reason: 'sign_in_expired',
      });
      const bensEnding = metSignIn(ben, bensMeeting);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await annsEnding.commit();
      const annsEvents = (
        await api.request('GET', `/meetings/${annsMeeting.meetingId}/events`, { key: ann.key })
      ).body.events as Array<{ reason: string; detail: string }>;
      expect(annsEvents.at(-1)).toMatchObject({ reason: 'bot_account_kept' });
      expect(annsEvents.at(-1)!.detail).toContain(
        'of 1 user(s) met a sign-in screen with it in 1 meeting(s)',
      );
      const bensEvents = await bensEnding;
      expect(bensEvents.at(-1)).toMatchObject({ reason: 'bot_account_expired' });
      expect(bensEvents.at(-1)!.detail).toContain(
        'of 2 user(s) met a sign-in screen with it in 2 meeting(s)',
      );
      expect(await accountStatus(id)).toMatchObject({ status: 'expired', status_reason: 'sign_in_expired' });
      const expiredEvents = await api.database
        .db('meeting_status_transitions')
        .where({ reason: 'bot_account_expired' })
        .where('detail', 'like', `bot account ${id} %`);
      expect(expiredEvents).toHaveLength(1);
      await api.database.db('meetings').where('platform', 'google_meet').update({ status: 'completed' });
      expect((await api.request('DELETE', `/admin/bot-accounts/${id}`, admin)).status).toBe(204);
    });

    it('with BOT_ACCOUNT_EXPIRY_USERS=1 the first sign-in screen expires it', async () => {
      const id = await registerAccount('google_meet', 'Meet Bot Solo');
      setBotAccountExpiryUsers(1);
      try {
        const events = await signInScreen(user);
        expect(events.at(-1)).toMatchObject({ reason: 'bot_account_expired' });
        expect(await accountStatus(id)).toMatchObject({ status: 'expired' });
      } finally {
        setBotAccountExpiryUsers(2);
      }
    });
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
    expect(sessionFileOf(spec)).toBeUndefined();
    expect(botConfigSchema.parse(JSON.parse(spec.env[BOT_CONFIG_ENV]!)).signedIn).toBeUndefined();
  });

  it('never logs the session', () => {
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.filter((line) => line.includes(SECRET))).toEqual([]);
  });
});
