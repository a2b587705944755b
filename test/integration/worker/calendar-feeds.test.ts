import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollFeed } from '../../../shared/calendars/poll.js';
import { claimDueFeeds } from '../../../shared/calendars/store.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { outboundAddressPolicyOf } from '../../../shared/infra/outbound-address-policy.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { CalendarPoller, calendarFeedSettingsOf } from '../../../worker/calendars/calendar-poller.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import { WorkerMetrics } from '../../../worker/metrics/worker-metrics.js';
import type { BotRuntime } from '../../../worker/runtime/bot-runtime.js';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { testBotServiceDeps } from '../../support/bot-service-deps.js';
import {
  BERLIN_VTIMEZONE,
  IcsServer,
  icsCalendar,
  icsEvent,
  icsUtc,
  icsWall,
} from '../../support/ics-server.js';
import { TEST_WEBHOOK_ENV } from '../../support/webhook-service.js';

// Calendar feeds against the real API, Postgres, Redis and BullMQ queues, with the worker's poller
// as worker/create-worker.ts builds it, polling a feed a local HTTP server on 127.0.0.1 serves. Rounds are
// run by hand (pollDue) so each sees exactly one version of the feed; no worker launches the bots.

const log = createLogger('calendar-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const LEAD_SECONDS = 60;
let api: TestApi;
const ics = new IcsServer();

const botDeps = () => testBotServiceDeps(api, log);

const settings = () => calendarFeedSettingsOf(api.config, outboundAddressPolicyOf(api.config));
const newPoller = () =>
  new CalendarPoller({ bots: botDeps(), settings: settings(), log }, { tickMs: 1000, leaseSeconds: 60 });

async function registerFeed(
  user: TestUser,
  path: string,
  body: Record<string, unknown> = {},
): Promise<number> {
  const response = await api.request('POST', '/calendar-feeds', {
    key: user.key,
    json: { url: ics.url(path), ...body },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

/** Makes the feed due now, as its next poll time coming would. */
async function makeDue(feedId: number): Promise<void> {
  await api.database
    .db('calendar_feeds')
    .where({ id: feedId })
    .update({ next_poll_at: api.database.db.fn.now() });
}

async function pollRound(feedId: number) {
  await makeDue(feedId);
  expect(await newPoller().pollDue()).toBe(1);
  const user = await api.database.db('calendar_feeds').where({ id: feedId }).first('user_id');
  const key = keys.get(user.user_id)!;
  const answer = await api.request('GET', `/calendar-feeds/${feedId}`, { key });
  expect(answer.status).toBe(200);
  return answer.body.last_poll;
}

const keys = new Map<number, string>();
async function newUser(): Promise<TestUser> {
  const user = await api.createUser({ maxConcurrentBots: 10 });
  keys.set(user.id, user.key);
  return user;
}

interface MeetingRow {
  id: number;
  platform: string;
  native_meeting_id: string;
  status: string;
  join_at: Date | null;
  schedule_key: string | null;
  bot_name: string;
  meeting_url: string;
  passcode: string | null;
}
async function meetingsOf(user: TestUser): Promise<MeetingRow[]> {
  return api.database.db('meetings').where({ user_id: user.id }).orderBy('id');
}

/** The next day's occurrence of a daily event at `at`'s wall-clock time in `zone` (23, 24 or 25 h later). */
function nextDaySameWall(at: Date, zone: string): Date {
  const time = icsWall(at, zone).slice(9);
  for (const hours of [24, 23, 25]) {
    const candidate = new Date(at.getTime() + hours * 3_600_000);
    if (icsWall(candidate, zone).slice(9) === time) return candidate;
  }
  throw new Error('no next day');
}

const joinOf = (start: Date) => new Date(start.getTime() - LEAD_SECONDS * 1000).toISOString();

beforeAll(async () => {
  await ics.start();
  api = await startTestApi({
    env: {
      ...TEST_WEBHOOK_ENV,
      BOT_SCHEDULE_HORIZON_DAYS: '30',
      CALENDAR_FEED_LEAD_SECONDS: String(LEAD_SECONDS),
      CALENDAR_FEED_FETCH_TIMEOUT_MS: '3000',
    },
  });
});

afterAll(async () => {
  await api?.close();
  await ics.close();
});

describe('a calendar feed polled by the worker', () => {
  // Two days ahead at 08:00 UTC, far from any time zone change's night.
  const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000);
  const berlin1 = new Date(day.getTime() + 8 * 3_600_000);
  const berlinMoved = new Date(berlin1.getTime() + 2 * 3_600_000);
  const berlin2 = nextDaySameWall(berlin1, 'Europe/Berlin');
  const berlin3 = nextDaySameWall(berlin2, 'Europe/Berlin');
  const newYork = new Date(day.getTime() + 15 * 3_600_000);
  const newYorkMoved = new Date(newYork.getTime() + 2 * 3_600_000);
  const google = new Date(day.getTime() + 12 * 3_600_000);
  const added = new Date(day.getTime() + 13 * 3_600_000);

  const daily = (extra: string[] = []) =>
    icsEvent([
      'UID:daily-berlin',
      `DTSTART;TZID=Europe/Berlin:${icsWall(berlin1, 'Europe/Berlin')}`,
      `DTEND;TZID=Europe/Berlin:${icsWall(new Date(berlin1.getTime() + 900_000), 'Europe/Berlin')}`,
      'RRULE:FREQ=DAILY;COUNT=5',
      'SUMMARY:Standup',
      'LOCATION:https://meet.google.com/abc-defg-hij',
      ...extra,
    ]);
  const dailyMoved = icsEvent([
    'UID:daily-berlin',
    `RECURRENCE-ID;TZID=Europe/Berlin:${icsWall(berlin1, 'Europe/Berlin')}`,
    `DTSTART;TZID=Europe/Berlin:${icsWall(berlinMoved, 'Europe/Berlin')}`,
    `DTEND;TZID=Europe/Berlin:${icsWall(new Date(berlinMoved.getTime() + 900_000), 'Europe/Berlin')}`,
    'SUMMARY:Standup (later today)',
  ]);
  const newYorkEvent = (start: Date) =>
    icsEvent([
      'UID:new-york',
      // No VTIMEZONE for it: the IANA zone the TZID names.
      `DTSTART;TZID=America/New_York:${icsWall(start, 'America/New_York')}`,
      'DURATION:PT1H',
      'SUMMARY:Sync with New York',
      'DESCRIPTION:Join on Teams: https://teams.microsoft.com/meet/312456789012?p=NyPass1',
    ]);
  const googleEvent = (cancelled: boolean) =>
    icsEvent([
      'UID:google-conference',
      `DTSTART:${icsUtc(google)}`,
      `DTEND:${icsUtc(new Date(google.getTime() + 1_800_000))}`,
      'SUMMARY:Planning',
      'DESCRIPTION:Agenda at https://docs.example.com/agenda',
      'X-GOOGLE-CONFERENCE:https://meet.google.com/cde-fghi-jkl',
      ...(cancelled ? ['STATUS:CANCELLED'] : []),
    ]);
  const cancelledEvent = icsEvent([
    'UID:cancelled',
    `DTSTART:${icsUtc(google)}`,
    `DTEND:${icsUtc(new Date(google.getTime() + 1_800_000))}`,
    'LOCATION:https://meet.google.com/bcd-efgh-ijk',
    'STATUS:CANCELLED',
  ]);
  const lunch = icsEvent([
    'UID:lunch',
    `DTSTART:${icsUtc(added)}`,
    `DTEND:${icsUtc(new Date(added.getTime() + 3_600_000))}`,
    'SUMMARY:Lunch',
    'LOCATION:Canteen',
  ]);
  const addedEvent = icsEvent([
    'UID:added',
    `DTSTART:${icsUtc(added)}`,
    `DTEND:${icsUtc(new Date(added.getTime() + 1_800_000))}`,
    'SUMMARY:Added later',
    'LOCATION:https://meet.google.com/def-ghij-klm',
  ]);

  it('schedules exactly the right bots, then follows moves, cancellations, removals and additions', async () => {
    const user = await newUser();
    ics.feeds.set(
      '/rounds.ics',
      icsCalendar([
        BERLIN_VTIMEZONE,
        daily(),
        dailyMoved,
        newYorkEvent(newYork),
        googleEvent(false),
        cancelledEvent,
        lunch,
      ]),
    );
    const feedId = await registerFeed(user, '/rounds.ics', { bot_name: 'Calendar Notetaker' });

    // Round 1: one bot per link: the Berlin series' next occurrence (the moved one), New York's, Google's.
    const first = await pollRound(feedId);
    expect(first).toMatchObject({ ok: true, error: null, scheduled: 3, moved: 0, cancelled: 0, notes: [] });
    const round1 = await meetingsOf(user);
    const view = (rows: MeetingRow[]) =>
      rows.map((row) => ({
        key: row.schedule_key,
        link: `${row.platform}/${row.native_meeting_id}`,
        status: row.status,
        join_at: row.join_at?.toISOString(),
      }));
    expect(view(round1)).toEqual(
      expect.arrayContaining([
        {
          key: `feed:${feedId}:daily-berlin:${icsUtc(berlin1)}`,
          link: 'google_meet/abc-defg-hij',
          status: 'requested',
          join_at: joinOf(berlinMoved),
        },
        {
          key: `feed:${feedId}:new-york`,
          link: 'teams/312456789012',
          status: 'requested',
          join_at: joinOf(newYork),
        },
        {
          key: `feed:${feedId}:google-conference`,
          link: 'google_meet/cde-fghi-jkl',
          status: 'requested',
          join_at: joinOf(google),
        },
      ]),
    );
    expect(round1).toHaveLength(3);
    expect(round1.every((row) => row.bot_name === 'Calendar Notetaker')).toBe(true);
    expect(round1.find((row) => row.platform === 'teams')).toMatchObject({
      passcode: 'NyPass1',
      meeting_url: 'https://teams.microsoft.com/meet/312456789012?p=NyPass1',
    });
    // The meetings API shows them as scheduled bots.
    const listed = await api.request('GET', '/meetings', { key: user.key });
    expect(
      listed.body.meetings.map((meeting: { data: { join_at: string } }) => meeting.data.join_at).sort(),
    ).toEqual([joinOf(berlinMoved), joinOf(newYork), joinOf(google)].sort());

    // The same feed again changes nothing.
    expect(await pollRound(feedId)).toMatchObject({ ok: true, scheduled: 0, moved: 0, cancelled: 0 });
    expect((await meetingsOf(user)).map((row) => row.id)).toEqual(round1.map((row) => row.id));

    // Round 2: New York moves two hours later, Google's event is cancelled, the Berlin series loses
    // its first occurrence (EXDATE), and an event is added.
    ics.feeds.set(
      '/rounds.ics',
      icsCalendar([
        BERLIN_VTIMEZONE,
        daily([`EXDATE;TZID=Europe/Berlin:${icsWall(berlin1, 'Europe/Berlin')}`]),
        newYorkEvent(newYorkMoved),
        googleEvent(true),
        cancelledEvent,
        lunch,
        addedEvent,
      ]),
    );
    expect(await pollRound(feedId)).toMatchObject({ ok: true, scheduled: 2, moved: 1, cancelled: 2 });
    const round2 = await meetingsOf(user);
    const byKey = (rows: MeetingRow[], key: string) => rows.filter((row) => row.schedule_key === key);
    const nyMeeting = round1.find((row) => row.platform === 'teams')!;
    expect(round2.find((row) => row.id === nyMeeting.id)).toMatchObject({
      status: 'requested',
      join_at: new Date(joinOf(newYorkMoved)),
    });
    const googleMeeting = round1.find((row) => row.native_meeting_id === 'cde-fghi-jkl')!;
    const firstBerlin = round1.find((row) => row.native_meeting_id === 'abc-defg-hij')!;
    for (const gone of [googleMeeting, firstBerlin]) {
      expect(round2.find((row) => row.id === gone.id)).toMatchObject({
        status: 'completed',
        schedule_key: null,
      });
      const history = await listTransitions(api.database.db, gone.id);
      expect(history.at(-1)).toMatchObject({
        to: 'completed',
        reason: 'schedule_cancelled',
        source: 'calendar',
      });
    }
    const moves = await listTransitions(api.database.db, nyMeeting.id);
    expect(moves.at(-1)).toMatchObject({
      from: 'requested',
      to: 'requested',
      reason: 'schedule_moved',
      source: 'calendar',
    });
    const second = byKey(round2, `feed:${feedId}:daily-berlin:${icsUtc(berlin2)}`);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ status: 'requested', join_at: new Date(joinOf(berlin2)) });
    expect(byKey(round2, `feed:${feedId}:added`)).toMatchObject([
      { status: 'requested', join_at: new Date(joinOf(added)), native_meeting_id: 'def-ghij-klm' },
    ]);
    expect(round2.filter((row) => row.status === 'requested')).toHaveLength(3);

    // Round 3: the Berlin series' bot has launched (a worker claimed it) and its occurrence moves:
    // the launched bot is left alone, and the next occurrence waits for the link. The added event
    // is removed; Google's event is back.
    await api.database
      .db('meetings')
      .where({ id: second[0]!.id })
      .update({ status: 'joining', launch_session_id: 'session-launched', worker_id: 'worker-x' });
    const movedSecond = new Date(berlin2.getTime() + 3 * 3_600_000);
    ics.feeds.set(
      '/rounds.ics',
      icsCalendar([
        BERLIN_VTIMEZONE,
        daily([`EXDATE;TZID=Europe/Berlin:${icsWall(berlin1, 'Europe/Berlin')}`]),
        icsEvent([
          'UID:daily-berlin',
          `RECURRENCE-ID;TZID=Europe/Berlin:${icsWall(berlin2, 'Europe/Berlin')}`,
          `DTSTART;TZID=Europe/Berlin:${icsWall(movedSecond, 'Europe/Berlin')}`,
          'DURATION:PT15M',
        ]),
        newYorkEvent(newYorkMoved),
        googleEvent(false),
        cancelledEvent,
        lunch,
      ]),
    );
    expect(await pollRound(feedId)).toMatchObject({ ok: true, scheduled: 1, moved: 0, cancelled: 1 });
    const round3 = await meetingsOf(user);
    expect(round3.find((row) => row.id === second[0]!.id)).toMatchObject({
      status: 'joining',
      join_at: new Date(joinOf(berlin2)),
    });
    expect(byKey(round3, `feed:${feedId}:daily-berlin:${icsUtc(berlin3)}`)).toEqual([]);
    expect(round3.find((row) => row.native_meeting_id === 'def-ghij-klm')).toMatchObject({
      status: 'completed',
    });
    const googleAgain = byKey(round3, `feed:${feedId}:google-conference`);
    expect(googleAgain).toHaveLength(1);
    expect(googleAgain[0]!.id).not.toBe(googleMeeting.id);
    expect(googleAgain[0]).toMatchObject({ status: 'requested', join_at: new Date(joinOf(google)) });
    // Waiting: New York and Google again; the launched Berlin bot goes on.
    expect(
      round3
        .filter((row) => row.status === 'requested')
        .map((row) => row.schedule_key)
        .sort(),
    ).toEqual([`feed:${feedId}:google-conference`, `feed:${feedId}:new-york`].sort());
  });

  it('with events=marked, schedules only the events carrying the marker word', async () => {
    const user = await newUser();
    ics.feeds.set(
      '/marked.ics',
      icsCalendar([
        icsEvent([
          'UID:with-marker',
          `DTSTART:${icsUtc(google)}`,
          'DURATION:PT30M',
          'SUMMARY:Design review #Notetaker',
          'LOCATION:https://meet.google.com/ghi-jklm-nop',
        ]),
        icsEvent([
          'UID:without-marker',
          `DTSTART:${icsUtc(added)}`,
          'DURATION:PT30M',
          'SUMMARY:One to one',
          'LOCATION:https://meet.google.com/hij-klmn-opq',
        ]),
      ]),
    );
    const feedId = await registerFeed(user, '/marked.ics', { events: 'marked' });
    // This round with the worker's metrics.
    const metrics = new WorkerMetrics(new Registry(), {
      fleet: new BotFleet(1),
      runtime: {} as BotRuntime,
      db: api.database.db,
      workerId: 'calendar-test',
      log,
    });
    await makeDue(feedId);
    const poller = new CalendarPoller(
      { bots: botDeps(), settings: settings(), log, metrics },
      { tickMs: 1000, leaseSeconds: 60 },
    );
    expect(await poller.pollDue()).toBe(1);
    const feed = await api.request('GET', `/calendar-feeds/${feedId}`, { key: user.key });
    expect(feed.body.last_poll).toMatchObject({ ok: true, scheduled: 1, occurrences: 1 });
    expect((await meetingsOf(user)).map((row) => row.native_meeting_id)).toEqual(['ghi-jklm-nop']);
    const scraped = await metrics.registry.metrics();
    expect(scraped).toContain('meetbot_calendar_feed_polls_total{outcome="ok"} 1');
    expect(scraped).toContain('meetbot_calendar_feed_bot_changes_total{change="scheduled"} 1');
  });

  it('two pollers at once: one polls the feed; even two polls of it at once never make two bots', async () => {
    const user = await newUser();
    const links = ['jkl-mnop-qrs', 'klm-nopq-rst', 'lmn-opqr-stu', 'mno-pqrs-tuv'];
    ics.feeds.set(
      '/busy.ics',
      icsCalendar(
        links.map((link, index) =>
          icsEvent([
            `UID:busy-${index}`,
            `DTSTART:${icsUtc(new Date(google.getTime() + index * 3_600_000))}`,
            'DURATION:PT30M',
            `LOCATION:https://meet.google.com/${link}`,
          ]),
        ),
      ),
    );
    const feedId = await registerFeed(user, '/busy.ics');
    const before = ics.hits.get('/busy.ics') ?? 0;
    const polled = await Promise.all([newPoller().pollDue(), newPoller().pollDue()]);
    expect(polled.sort()).toEqual([0, 1]);
    expect((ics.hits.get('/busy.ics') ?? 0) - before).toBe(1);
    expect(await meetingsOf(user)).toHaveLength(4);

    // A lease that expired under a slow poller: two polls of the same feed run at once.
    const feed = await api.database.db('calendar_feeds').where({ id: feedId }).first();
    await api.database
      .db('meetings')
      .where({ user_id: user.id })
      .update({ schedule_key: null, status: 'failed' });
    const claimed = (leaseToken: string) => ({
      id: feedId,
      userId: user.id,
      url: feed.url,
      botName: null,
      events: 'all' as const,
      marker: '#notetaker',
      createdAt: feed.created_at,
      updatedAt: feed.updated_at,
      nextPollAt: feed.next_poll_at,
      lastPoll: null,
      leaseToken,
    });
    // Both believe they hold the lease (the second took it after the first's expired, and the
    // first has not noticed yet).
    const token = '00000000-0000-4000-8000-000000000001';
    await api.database.db('calendar_feeds').where({ id: feedId }).update({ lease_token: token });
    const results = await Promise.all([1, 2].map(() => pollFeed(botDeps(), settings(), claimed(token))));
    expect(results.reduce((sum, result) => sum + result.outcome.scheduled, 0)).toBe(4);
    const waiting = (await meetingsOf(user)).filter((row) => row.status === 'requested');
    expect(waiting.map((row) => row.schedule_key).sort()).toEqual(
      links.map((_, index) => `feed:${feedId}:busy-${index}`).sort(),
    );
  });

  it('a poll that lost its lease (the feed deleted, or taken by another poller) schedules nothing', async () => {
    const user = await newUser();
    ics.feeds.set(
      '/lost.ics',
      icsCalendar([
        icsEvent([
          'UID:lost',
          `DTSTART:${icsUtc(google)}`,
          'DURATION:PT30M',
          'LOCATION:https://meet.google.com/opq-rstu-vwx',
        ]),
      ]),
    );
    const feedId = await registerFeed(user, '/lost.ics');
    const [claimed] = await claimDueFeeds(api.database.db, { leaseSeconds: 60, limit: 100 }).then((feeds) =>
      feeds.filter((feed) => feed.id === feedId),
    );
    expect(claimed).toBeDefined();
    await api.database
      .db('calendar_feeds')
      .where({ id: feedId })
      .update({ lease_token: null, lease_until: null });
    const result = await pollFeed(botDeps(), settings(), claimed!);
    expect(result.recorded).toBe(false);
    expect(await meetingsOf(user)).toEqual([]);
    // Its own next poll does schedule it.
    expect(await pollRound(feedId)).toMatchObject({ ok: true, scheduled: 1 });
  });

  it('deleting a feed cancels its waiting bots', async () => {
    const user = await newUser();
    ics.feeds.set(
      '/deleted.ics',
      icsCalendar([
        icsEvent([
          `UID:soon`,
          `DTSTART:${icsUtc(google)}`,
          'DURATION:PT30M',
          'LOCATION:https://meet.google.com/nop-qrst-uvw',
        ]),
      ]),
    );
    const feedId = await registerFeed(user, '/deleted.ics');
    expect(await pollRound(feedId)).toMatchObject({ scheduled: 1 });
    const deleted = await api.request('DELETE', `/calendar-feeds/${feedId}`, { key: user.key });
    expect(deleted.status).toBe(204);
    const [meeting] = await meetingsOf(user);
    expect(meeting).toMatchObject({ status: 'completed' });
    expect((await api.request('GET', `/calendar-feeds/${feedId}`, { key: user.key })).status).toBe(404);
  });
  it("takes due feeds in turns between users: one user's many feeds don't come first", async () => {
    const [many, one, later] = [await newUser(), await newUser(), await newUser()];
    ics.feeds.set('/turns.ics', icsCalendar([]));
    const manyFeeds: number[] = [];
    for (let index = 0; index < 5; index += 1) manyFeeds.push(await registerFeed(many, '/turns.ics'));
    const oneFeed = await registerFeed(one, '/turns.ics');
    const laterFeed = await registerFeed(later, '/turns.ics');
    const db = api.database.db;
    // The many feeds have been due longest, then the one user's, then the later user's.
    for (const [index, id] of manyFeeds.entries())
      await db('calendar_feeds')
        .where({ id })
        .update({ next_poll_at: db.raw(`now() - interval '${10 - index} minutes'`) });
    await db('calendar_feeds')
      .where({ id: oneFeed })
      .update({ next_poll_at: db.raw(`now() - interval '2 minutes'`) });
    await db('calendar_feeds')
      .where({ id: laterFeed })
      .update({ next_poll_at: db.raw(`now() - interval '1 minute'`) });

    const ids = (feeds: { id: number }[]) => feeds.map((feed) => feed.id).sort((a, b) => a - b);
    const first = await claimDueFeeds(db, { leaseSeconds: 60, limit: 2 });
    expect(ids(first)).toEqual([manyFeeds[0], oneFeed]);
    // The many user has a feed in hand (leased): the later user, due last, goes first now.
    const second = await claimDueFeeds(db, { leaseSeconds: 60, limit: 1 });
    expect(ids(second)).toEqual([laterFeed]);
    const rest = await claimDueFeeds(db, { leaseSeconds: 60, limit: 10 });
    expect(ids(rest)).toEqual(manyFeeds.slice(1));

    for (const [user, feedIds] of [
      [many, manyFeeds],
      [one, [oneFeed]],
      [later, [laterFeed]],
    ] as const)
      for (const id of feedIds) await api.request('DELETE', `/calendar-feeds/${id}`, { key: user.key });
  });

  it('polls several feeds at once, never more than its concurrency', async () => {
    const user = await newUser();
    let inFlight = 0;
    let most = 0;
    ics.routes.set('/slow.ics', (_request, response) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        response.writeHead(200, { 'Content-Type': 'text/calendar' }).end(icsCalendar([]));
      }, 1500);
    });
    const feedIds: number[] = [];
    for (let index = 0; index < 5; index += 1) feedIds.push(await registerFeed(user, '/slow.ics'));
    for (const id of feedIds) await makeDue(id);
    const poller = new CalendarPoller(
      { bots: botDeps(), settings: settings(), log },
      { tickMs: 1000, leaseSeconds: 60, concurrency: 3 },
    );
    expect(await poller.pollDue()).toBe(5);
    expect(most).toBe(3);
    for (const id of feedIds) {
      const feed = await api.request('GET', `/calendar-feeds/${id}`, { key: user.key });
      expect(feed.body.last_poll).toMatchObject({ ok: true });
      await api.request('DELETE', `/calendar-feeds/${id}`, { key: user.key });
    }
  });
});
