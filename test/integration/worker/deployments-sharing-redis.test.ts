import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/infra/logger.js';
import { MeetingChangeListener, meetingAnnouncer } from '../../../shared/meetings/changes.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { createTestRedis, uniquePrefix } from '../../support/redis.js';

// Two deployments on one Redis server, told apart by the database number in REDIS_URL and both on
// the same QUEUE_PREFIX (the default, say). Their keys are apart already; pub/sub channels are not
// per database, so what one announces must still not reach the other.

const log = createLogger('deployments-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const prefix = uniquePrefix('shared');
const clients: Redis[] = [];
const listeners: MeetingChangeListener[] = [];

function urlOfDatabase(db: number): string {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = `/${db}`;
  return url.toString();
}

function deployment(db: number) {
  const redis = createTestRedis(urlOfDatabase(db));
  const listener = new MeetingChangeListener(createTestRedis(urlOfDatabase(db)), prefix, log);
  clients.push(redis);
  listeners.push(listener);
  const heard: number[][] = [];
  listener.listenToAll((ids) => heard.push(ids));
  return { announce: meetingAnnouncer(redis, prefix, log), listener, heard };
}

afterAll(async () => {
  await Promise.all(listeners.map((listener) => listener.close()));
  for (const client of clients) client.disconnect();
});

describe('two deployments on one Redis, same QUEUE_PREFIX, different databases', () => {
  it("don't hear each other's meeting changes; each hears its own", async () => {
    const first = deployment(1);
    const second = deployment(2);
    const firstReplica = deployment(1);
    await Promise.all([first.listener.start(), second.listener.start(), firstReplica.listener.start()]);

    await first.announce([41]);
    await second.announce([42]);
    // Announcements are delivered in order per connection: one more from each, heard by its own
    // side, marks that everything sent before it has arrived wherever it was going to.
    await first.announce([1000]);
    await second.announce([2000]);
    await expect.poll(() => first.heard.flat()).toContain(1000);
    await expect.poll(() => firstReplica.heard.flat()).toContain(1000);
    await expect.poll(() => second.heard.flat()).toContain(2000);

    expect(first.heard.flat()).toEqual([41, 1000]);
    expect(firstReplica.heard.flat()).toEqual([41, 1000]);
    expect(second.heard.flat()).toEqual([42, 2000]);
  });
});
