import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticatedKey } from '../../../shared/accounts/keys-store.js';
import { redisBotCommands } from '../../../shared/bots/command-channel.js';
import { bullBotJobs } from '../../../shared/bots/jobs.js';
import type { BotServiceDeps } from '../../../shared/bots/service.js';
import type { PlannedOccurrence } from '../../../shared/calendars/plan.js';
import { syncFeedBots } from '../../../shared/calendars/sync.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { outboundAddressPolicyOf } from '../../../shared/infra/outbound-address-policy.js';
import { webhookOutbox } from '../../../shared/webhooks/record-events.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { meetCodeOf } from '../../support/meet-codes.js';

const CAP = 3;
const capError = `Too many scheduled bots: at most ${CAP} may wait for their join_at at once; cancel one or wait until one has launched`;

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ env: { MAX_SCHEDULED_BOTS_PER_USER: String(CAP) } });
});
afterAll(() => api.close());

let counter = 0;
/** A fresh Google Meet id per call, so bots never collide on one meeting. */
function meetId(): string {
  counter += 1;
  return meetCodeOf(counter);
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function schedule(user: TestUser, id = meetId()) {
  return api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id, { join_at: inAnHour() }) });
}

async function waitingCount(userId: number): Promise<number> {
  const row = await api.database
    .db('meetings')
    .where({ user_id: userId, status: 'requested' })
    .whereNotNull('join_at')
    .whereNull('launch_session_id')
    .count<{ count: number }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

describe('MAX_SCHEDULED_BOTS_PER_USER', () => {
  it('refuses a scheduled bot over the cap with 429 and says why; bots sent at once and other users are not held back', async () => {
    const user = await api.createUser({ maxConcurrentBots: 10 });
    const ids = [meetId(), meetId(), meetId()];
    for (const id of ids) expect((await schedule(user, id)).status).toBe(201);

    const refused = await schedule(user);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: capError });
    expect(await waitingCount(user.id)).toBe(CAP);

    // The cap is on bots waiting for their time: one sent at once takes a slot of the concurrent limit instead.
    expect(
      (await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(meetId()) })).status,
    ).toBe(201);
    const other = await api.createUser({ maxConcurrentBots: 10 });
    expect((await schedule(other)).status).toBe(201);

    // A cancelled scheduled bot frees its place.
    expect((await api.request('DELETE', `/bots/google_meet/${ids[0]}`, { key: user.key })).status).toBe(202);
    expect((await schedule(user)).status).toBe(201);
    expect((await schedule(user)).status).toBe(429);
  });

  it('lets exactly one of 20 parallel requests through when the user is one below the cap', async () => {
    const user = await api.createUser({ maxConcurrentBots: 10 });
    for (let index = 0; index < CAP - 1; index += 1) expect((await schedule(user)).status).toBe(201);

    const answers = await Promise.all(Array.from({ length: 20 }, () => schedule(user)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(19);
    expect(await waitingCount(user.id)).toBe(CAP);
  });

  it('holds for a calendar feed: the sync schedules up to the cap and notes the events left without a bot, then catches up when there is room', async () => {
    const user = await api.createUser({ maxConcurrentBots: 10 });
    const byHand = [meetId(), meetId()];
    for (const id of byHand) expect((await schedule(user, id)).status).toBe(201);

    const log = createLogger('scheduled-cap-test', process.env.TEST_LOG_LEVEL ?? 'silent');
    const deps: BotServiceDeps = {
      db: api.database.db,
      jobs: bullBotJobs(api.queues),
      commands: redisBotCommands(api.redis, api.prefix),
      log,
      defaultBotName: 'Meetbot',
      recordingEnabledDefault: false,
      extraMeetingOrigins: [],
      announce: async () => undefined,
      events: webhookOutbox,
      webhookPolicy: outboundAddressPolicyOf(api.config),
      transcriptionEngine: api.config.TRANSCRIPTION_ENGINE,
      schedule: {
        horizonDays: 30,
        clockSkewSeconds: 30,
        maxWaitingPerUser: api.config.MAX_SCHEDULED_BOTS_PER_USER,
      },
    };
    const auth: AuthenticatedKey = {
      keyId: 0,
      lastUsedAt: null,
      user: { id: user.id, email: user.email, maxConcurrentBots: 10 },
    };
    const feedId = 4800 + counter;
    const now = Date.now();
    const planned: PlannedOccurrence[] = [1, 2, 3, 4].map((hours) => {
      const id = meetId();
      const start = new Date(now + hours * 3_600_000);
      return {
        key: `feed:${feedId}:event-${hours}`,
        occurrence: {
          uid: `event-${hours}`,
          recurrenceId: null,
          start,
          end: new Date(start.getTime() + 1_800_000),
          summary: `Event ${hours}`,
          description: '',
          location: '',
          url: '',
          conference: [],
        },
        link: { platform: 'google_meet', nativeMeetingId: id, meetingUrl: `https://meet.google.com/${id}` },
      };
    });
    const feed = { id: feedId, botName: null };

    const first = await syncFeedBots(deps, auth, feed, planned, { leadSeconds: 60, now });
    expect(first.scheduled).toBe(1);
    expect(first.notes).toHaveLength(1);
    expect(first.notes[0]?.reason).toMatch(
      /^3 event\(s\) got no bot: you have the most scheduled bots allowed waiting at once \(3, MAX_SCHEDULED_BOTS_PER_USER\)/,
    );
    expect(await waitingCount(user.id)).toBe(CAP);

    // Polling again while full changes nothing and says so again.
    const again = await syncFeedBots(deps, auth, feed, planned, { leadSeconds: 60, now });
    expect(again).toMatchObject({ scheduled: 0, cancelled: 0 });
    expect(again.notes[0]?.reason).toMatch(/^3 event\(s\) got no bot/);

    // Room again (the user cancels the bots sent by hand): the next poll schedules the rest it can.
    for (const id of byHand) {
      expect((await api.request('DELETE', `/bots/google_meet/${id}`, { key: user.key })).status).toBe(202);
    }
    const later = await syncFeedBots(deps, auth, feed, planned, { leadSeconds: 60, now });
    expect(later.scheduled).toBe(2);
    expect(later.notes.map((note) => note.reason)).toEqual([
      expect.stringMatching(/^1 event\(s\) got no bot/),
    ]);
    expect(await waitingCount(user.id)).toBe(CAP);
  });
});
