import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../../support/api.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';

/**
 * Issue 34 part 1 on both platforms, on one stack: a bot sent with `authenticated: true` signs in with
 * a bot account's session (the simulator's `sim_account` cookie), joins a meeting only signed-in users
 * may join under the account's name and transcribes; an anonymous bot is refused (`sign_in_required`)
 * and, with BOT_ACCOUNT_FALLBACK, comes back signed in; once the session stops working the bot ends
 * `sign_in_expired` and the account leaves the pool, and an anonymous bot then stays refused. The
 * session's secret never shows in `docker inspect` or the worker's log.
 */

const KEY = randomBytes(32).toString('base64');
const admin = { adminKey: ADMIN_KEY };
const tokens: string[] = [];
let stack: Stack;
let worker: WorkerProcess;

beforeAll(async () => {
  stack = await startStack({
    apiEnv: { BOT_ACCOUNT_KEY: KEY },
    // One user here, as on a single-user deployment: it may take the whole pool, and its own
    // meeting's sign-in screen is evidence enough (the per-user share and the corroboration by
    // several users are tested in test/integration/worker/bot-account-launches.test.ts).
    workerEnv: {
      BOT_ACCOUNT_KEY: KEY,
      BOT_ACCOUNT_MAX_BOTS: '2',
      BOT_ACCOUNT_FALLBACK: 'true',
      BOT_ACCOUNT_USER_SHARE: '1',
      BOT_ACCOUNT_EXPIRY_USERS: '1',
    },
  });
  worker = stack.startWorker('accounts-w1');
});
afterAll(() => stack?.close());

const SENTENCE = 'the quarterly report is ready for review';

async function lastEvents(meetingId: number) {
  const response = await stack.api.request('GET', `/meetings/${meetingId}/events`, { key: stack.user.key });
  return response.body.events as Array<{
    from: string;
    to: string;
    reason: string;
    source: string;
    detail: string;
  }>;
}

/** Lists the container's file; the bot deletes its session file once read. */
async function filesOf(containerId: string, directory: string): Promise<string> {
  const exec = await stack.docker.getContainer(containerId).exec({
    Cmd: ['ls', '-a', directory],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise((resolve) => stream.on('end', resolve));
  return Buffer.concat(chunks).toString('utf8');
}

describe.each(['google_meet', 'teams'] as const)('%s: signed-in bots', (platform) => {
  it('refuses an anonymous bot, admits a signed-in one under its account and expires the account with its session', async () => {
    const token = `sim-${platform}-${randomBytes(12).toString('hex')}`;
    tokens.push(token);
    const accountName = platform === 'google_meet' ? 'Ada Meet Account' : 'Ada Teams Account';
    const registered = await stack.api.request('POST', '/admin/bot-accounts', {
      ...admin,
      json: {
        platform,
        display_name: accountName,
        storage_state: { cookies: [{ name: 'sim_account', value: token, domain: '127.0.0.1', path: '/' }] },
      },
    });
    expect(registered.status, registered.text).toBe(201);
    const accountId = registered.body.id as number;
    const access = { signedInOnly: true, accounts: [{ name: accountName, token }] };
    const meeting = {
      platform,
      admission: { policy: 'open' as const },
      access,
      participants: [{ name: 'Alice Archer', utterances: [{ at: 2, text: SENTENCE }] }],
    };

    // An anonymous bot and a signed-in one, side by side. The anonymous one is refused, and falls
    // back to the account (BOT_ACCOUNT_FALLBACK): it comes back signed in.
    const [anonymous, signedIn] = await Promise.all([
      stack.createMeetingAndBot(meeting),
      stack.createMeetingAndBot(meeting, { authenticated: true, bot_name: 'Not This Name' }),
    ]);

    const anonymousEnd = (
      await stack.waitForStatus(anonymous.meetingId, ['failed', 'completed', 'active'], 180_000)
    ).at(-1);
    expect(anonymousEnd, JSON.stringify(await lastEvents(anonymous.meetingId))).toBe('active');
    const refusal = (await lastEvents(anonymous.meetingId)).find(
      (event) => event.reason === 'sign_in_required',
    );
    expect(refusal).toMatchObject({ source: 'bot' });
    expect(refusal?.to).toBe(refusal?.from);
    expect(refusal?.detail).toMatch(/signed-in bot \(BOT_ACCOUNT_FALLBACK\)/);
    expect((await stack.simulator.getMeeting(anonymous.nativeId)).bot).toMatchObject({
      state: 'in_call',
      signedInAs: accountName,
    });

    expect(
      (await stack.waitForStatus(signedIn.meetingId, ['active', 'failed', 'completed'], 180_000)).at(-1),
    ).toBe('active');
    const inCall = await stack.simulator.getMeeting(signedIn.nativeId);
    expect(inCall.bot).toMatchObject({ state: 'in_call', name: accountName, signedInAs: accountName });
    expect((await stack.api.request('GET', `/admin/bot-accounts/${accountId}`, admin)).body.bots_in_use).toBe(
      2,
    );

    // The session is in no environment variable or label, and its file is gone once read.
    const [container] = await stack.containersOf(signedIn.meetingId);
    const inspected = await stack.docker.getContainer(container!.Id).inspect();
    expect(JSON.stringify({ env: inspected.Config.Env, labels: inspected.Config.Labels })).not.toContain(
      token,
    );
    expect(await filesOf(container!.Id, '/home/bot')).not.toContain('bot-account-session.json');

    await expect
      .poll(
        async () => {
          const transcript = await stack.api.request('GET', `/transcripts/${platform}/${signedIn.nativeId}`, {
            key: stack.user.key,
          });
          return (transcript.body.segments as Array<{ text: string }>).map((s) => s.text).join(' ');
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toMatch(/report/);
    for (const bot of [signedIn, anonymous]) {
      const stopped = await stack.api.request('DELETE', `/bots/${platform}/${bot.nativeId}`, {
        key: stack.user.key,
      });
      expect(stopped.status).toBe(202);
    }
    await expect
      .poll(
        async () =>
          (await stack.api.request('GET', `/admin/bot-accounts/${accountId}`, admin)).body.bots_in_use,
        {
          timeout: 30_000,
        },
      )
      .toBe(0);

    // The account's session stops working (expired mid-life): the next signed-in bot meets the
    // sign-in screen, ends sign_in_expired, and the account leaves the pool.
    const expiring = await stack.simulator.createMeeting(meeting);
    await stack.simulator.expireAccount(expiring.id, accountName);
    const expired = await stack.api.request('POST', '/bots', {
      key: stack.user.key,
      json: {
        platform,
        native_meeting_id: expiring.id,
        meeting_url: expiring.url,
        ...(expiring.passcode && { passcode: expiring.passcode }),
        authenticated: true,
      },
    });
    expect(expired.status, expired.text).toBe(201);
    expect(
      (await stack.waitForStatus(expired.body.id, ['failed', 'completed', 'active'], 180_000)).at(-1),
    ).toBe('failed');
    const events = await lastEvents(expired.body.id);
    expect(events.slice(-2)).toMatchObject([
      { to: 'failed', source: 'bot', reason: 'sign_in_expired' },
      { from: 'failed', to: 'failed', source: 'worker', reason: 'bot_account_expired' },
    ]);
    expect((await stack.api.request('GET', `/admin/bot-accounts/${accountId}`, admin)).body).toMatchObject({
      status: 'expired',
      status_reason: 'sign_in_expired',
    });

    // Out of the pool: a signed-in bot for this platform now finds no account, and an anonymous one
    // has none to fall back to: it stays refused.
    const [none, refused] = await Promise.all([
      stack.createMeetingAndBot(meeting, { authenticated: true }),
      stack.createMeetingAndBot(meeting),
    ]);
    expect(
      (await stack.waitForStatus(none.meetingId, ['failed', 'completed', 'active'], 60_000)).at(-1),
    ).toBe('failed');
    expect((await lastEvents(none.meetingId)).at(-1)).toMatchObject({ reason: 'no_bot_account_available' });
    expect(
      (await stack.waitForStatus(refused.meetingId, ['failed', 'completed', 'active'], 180_000)).at(-1),
    ).toBe('failed');
    const refusedEvents = await lastEvents(refused.meetingId);
    expect(refusedEvents.at(-1)).toMatchObject({ to: 'failed', source: 'bot', reason: 'sign_in_required' });
    expect(refusedEvents.filter((event) => event.reason === 'sign_in_required')).toHaveLength(1);
  });
});

describe('the sessions', () => {
  it("appear in no line of the worker's log", () => {
    expect(tokens).toHaveLength(2);
    for (const token of tokens) expect(worker.output()).not.toContain(token);
  });
});
