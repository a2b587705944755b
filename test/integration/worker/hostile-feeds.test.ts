import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/infra/logger.js';
import { outboundAddressPolicyOf } from '../../../shared/infra/outbound-address-policy.js';
import {
  CalendarPoller,
  calendarFeedSettingsOf,
  calendarPollerOptionsOf,
} from '../../../worker/calendars/calendar-poller.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import { serveWorkerMetrics, WorkerMetrics } from '../../../worker/metrics/worker-metrics.js';
import type { BotRuntime } from '../../../worker/runtime/bot-runtime.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { testBotServiceDeps } from '../../support/bot-service-deps.js';
import { FakeBots } from '../../support/fake-bot.js';
import { deeplyNestedFeed, largeFeed, minutelyFeed, neverMatchingFeed } from '../../support/hostile-feeds.js';
import { IcsServer } from '../../support/ics-server.js';
import { LaunchWorkers, until } from '../../support/launch-workers.js';
import { meetCodeOf } from '../../support/meet-codes.js';
import { TEST_WEBHOOK_ENV } from '../../support/webhook-service.js';

// Issue 48: calendar feeds built to stall a worker (a rule that never matches, 500 minutely events,
// 5 MiB of events, components nested 100,000 deep) are polled by the worker's own poller, in this
// process, while the same process launches bots, ingests a meeting's segments and answers metrics
// scrapes. All of them share one event loop: a feed expanded on it would stop the others, as it did
// before the expansion moved to a process of its own.

const log = createLogger('hostile-feeds-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const EXPANSION_TIMEOUT_MS = 15_000;
const MAX_STEPS = 200_000;
let api: TestApi;
let launchWorkers: LaunchWorkers;
let fakeBots: FakeBots;
let metricsServer: Server;
const ics = new IcsServer();

beforeAll(async () => {
  await ics.start();
  api = await startTestApi({
    env: {
      ...TEST_WEBHOOK_ENV,
      CALENDAR_FEED_EXPANSION_TIMEOUT_MS: String(EXPANSION_TIMEOUT_MS),
      CALENDAR_FEED_MAX_EXPANSION_STEPS: String(MAX_STEPS),
      // The never-matching rule's heap grows some 25 MB a second: with this much room the time limit
      // is what stops it (at 256 MB either may come first).
      CALENDAR_FEED_EXPANSION_MEMORY_MB: '1024',
      CALENDAR_FEED_POLL_CONCURRENCY: '4',
    },
  });
  launchWorkers = new LaunchWorkers(api, log);
  // Room for every bot the test sends (they never end: the runtime starts no container).
  launchWorkers.start('hostile-w1', {}, 1000);
  fakeBots = new FakeBots(api);
  const metrics = new WorkerMetrics(new Registry(), {
    fleet: new BotFleet(4),
    runtime: { usage: async () => undefined } as unknown as BotRuntime,
    db: api.database.db,
    workerId: 'hostile-w1',
    log,
  });
  metricsServer = await serveWorkerMetrics(metrics.registry, {
    host: '127.0.0.1',
    port: 0,
    token: undefined,
  });
}, 120_000);

afterAll(async () => {
  await launchWorkers?.stopAll();
  await launchWorkers?.closeSessions();
  await fakeBots?.close();
  await new Promise((resolve) => metricsServer?.close(resolve));
  await api?.close();
  await ics.close();
});

/** GET /metrics; resolves with how long the answer took (ms). */
function scrape(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/metrics', timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function registerFeed(user: TestUser, path: string): Promise<number> {
  const response = await api.request('POST', '/calendar-feeds', {
    key: user.key,
    json: { url: ics.url(path) },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id;
}

describe('hostile calendar feeds', () => {
  it('end their polls with a clear reason while the worker keeps launching, ingesting and answering metrics', async () => {
    ics.feeds.set('/never.ics', neverMatchingFeed());
    ics.feeds.set('/minutely.ics', minutelyFeed());
    ics.feeds.set('/large.ics', largeFeed());
    ics.feeds.set('/nested.ics', deeplyNestedFeed());
    const attacker = await api.createUser({ maxConcurrentBots: 10 });
    const feeds = {
      never: await registerFeed(attacker, '/never.ics'),
      minutely: await registerFeed(attacker, '/minutely.ics'),
      large: await registerFeed(attacker, '/large.ics'),
      nested: await registerFeed(attacker, '/nested.ics'),
    };
    // Every bot sent stays (the runtime starts no container): room for all of them.
    const user = await api.createUser({ maxConcurrentBots: 1000 });

    const port = (metricsServer.address() as AddressInfo).port;
    const scrapes: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        scrapes.push(await scrape(port));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const poller = new CalendarPoller(
      {
        bots: testBotServiceDeps(api, log),
        settings: calendarFeedSettingsOf(api.config, outboundAddressPolicyOf(api.config)),
        log,
      },
      calendarPollerOptionsOf(api.config),
    );
    const polled = poller.pollDue();
    let launched = 0;
    let ingested = 0;
    try {
      // While the feeds are read: a bot sent and launched, and a segment of a meeting committed, in
      // rounds a quarter of a second apart.
      const meeting = await fakeBots.startMeeting(user, 'ing-estw-hil');
      await fakeBots.event(meeting.meetingId, meeting.sessionId, 'active');
      let pollsDone = false;
      void polled.finally(() => {
        pollsDone = true;
      });
      for (let round = 0; !pollsDone || round < 3; round += 1) {
        const sent = await api.request('POST', '/bots', {
          key: user.key,
          json: googleMeetBot(meetCodeOf(round)),
        });
        expect(sent.status, sent.text).toBe(201);
        await until(() => (launchWorkers.startsOf(sent.body.id).length > 0 ? true : undefined), 30_000);
        launched += 1;
        await fakeBots.segment(meeting.meetingId, meeting.sessionId, {
          id: `seg-${round}`,
          start: round,
          text: `said while the feeds were read ${round}`,
        });
        await until(async () => {
          const rows = await api.database.db('transcript_segments').where({ meeting_id: meeting.meetingId });
          return rows.length > round ? true : undefined;
        }, 30_000);
        ingested += 1;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(await polled).toBe(4);
    } finally {
      probing = false;
      await probe;
      await polled.catch(() => undefined);
    }

    const lastPoll = async (id: number) =>
      (await api.request('GET', `/calendar-feeds/${id}`, { key: attacker.key })).body.last_poll;
    expect(await lastPoll(feeds.never)).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^the feed took more than 15 s to read; a recurrence rule that never matches/,
      ),
    });
    expect(await lastPoll(feeds.minutely)).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^the feed's events repeat too often to read: more than 200,000 recurrences/,
      ),
    });
    expect(await lastPoll(feeds.nested)).toMatchObject({
      ok: false,
      error: 'not a calendar: its components are nested more than 8 deep',
    });
    // 5 MiB of single events is within every budget: read, and (having no links) no bot.
    expect(await lastPoll(feeds.large)).toMatchObject({ ok: true, occurrences: 0, scheduled: 0 });
    expect(await api.database.db('meetings').where({ user_id: attacker.id })).toHaveLength(0);

    expect(launched).toBeGreaterThanOrEqual(3);
    expect(ingested).toBe(launched);
    const p99 = percentile(scrapes, 99);
    log.info({ scrapes: scrapes.length, p99, max: Math.max(...scrapes) }, 'metrics scrapes while polling');
    expect(scrapes.length).toBeGreaterThan(10);
    expect(p99, `p99 of ${scrapes.length} scrapes`).toBeLessThan(1000);
  });
});
