import { afterAll, describe, expect, it } from 'vitest';
import { botAliveKey } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import { BotLagWatch } from '../../../worker/fleet/bot-lag-watch.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('lag-watch-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const redis = createTestRedis();
const prefix = uniquePrefix('lag-watch');

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

async function botSays(
  sessionId: string,
  lagSeconds: number,
  lagging: boolean,
  settling?: boolean,
): Promise<void> {
  await redis.set(
    botAliveKey(prefix, sessionId),
    JSON.stringify({ at: Date.now(), lagSeconds, lagging, ...(settling !== undefined && { settling }) }),
    'PX',
    8000,
  );
}

/** A launch that started a bot: the slot reserved, then the container's. */
function launched(fleet: BotFleet, n: number): void {
  expect(fleet.reserve()).toBe(true);
  fleet.settle({ containerId: `c-${n}`, meetingId: n, sessionId: `s-${n}` });
}

describe('a worker watching its bots’ lag', () => {
  it('takes no launches while one of its bots lags, and takes them again once it caught up', async () => {
    const fleet = new BotFleet(4);
    fleet.adopt({ containerId: 'c-1', meetingId: 1, sessionId: 's-1' });
    fleet.adopt({ containerId: 'c-2', meetingId: 2, sessionId: 's-2' });
    const watch = new BotLagWatch({ redis, prefix, fleet, log });
    await botSays('s-1', 1.2, false);
    await redis.set(botAliveKey(prefix, 's-2'), '1', 'PX', 8000); // an older bot: no lag reading
    await watch.check();
    expect(fleet.accepting).toBe(true);

    await botSays('s-1', 14.5, true);
    await watch.check();
    expect(fleet.accepting).toBe(false);
    expect(fleet.laggingBots).toBe(1);
    expect(fleet.reserve()).toBe(false);
    expect(watch.lags()).toEqual(
      expect.arrayContaining([
        { meetingId: 1, containerId: 'c-1', lagSeconds: 14.5, lagging: true },
        { meetingId: 2, containerId: 'c-2', lagSeconds: 0, lagging: false },
      ]),
    );

    let freed = 0;
    fleet.on('freed', () => freed++);
    await botSays('s-1', 2, false);
    await watch.check();
    expect(freed).toBe(1);
    expect(fleet.accepting).toBe(true);
    expect(fleet.reserve()).toBe(true);
  });

  it('forgets a lagging bot that ended', async () => {
    const fleet = new BotFleet(1);
    fleet.adopt({ containerId: 'c-3', meetingId: 3, sessionId: 's-3' });
    const watch = new BotLagWatch({ redis, prefix, fleet, log });
    await botSays('s-3', 30, true);
    await watch.check();
    expect(fleet.laggingBots).toBe(1);
    fleet.release('c-3');
    expect(fleet.laggingBots).toBe(0);
    await watch.check();
    expect(watch.lags()).toEqual([]);
    expect(fleet.accepting).toBe(true);
  });
});

describe('a worker letting its bots settle in one at a time', () => {
  it('starts no other bot until the last one says it has settled, then takes launches again', async () => {
    const fleet = new BotFleet(4, 30_000);
    const watch = new BotLagWatch({ redis, prefix, fleet, log });
    launched(fleet, 11);
    // Its container runs but the bot has not said anything yet: settling since it started.
    await watch.check();
    expect(fleet.settlingBots).toBe(1);
    expect(fleet.accepting).toBe(false);
    expect(fleet.reserve()).toBe(false);

    await botSays('s-11', 0, false, true);
    await watch.check();
    expect(fleet.accepting).toBe(false);

    let freed = 0;
    fleet.on('freed', () => freed++);
    await botSays('s-11', 0, false, false); // waiting in the lobby, or in the call with its measures done
    await watch.check();
    expect(freed).toBe(1);
    expect(fleet.settlingBots).toBe(0);
    expect(fleet.accepting).toBe(true);

    // Admitted later: settling again until its video measures are done.
    await botSays('s-11', 0, false, true);
    await watch.check();
    expect(fleet.accepting).toBe(false);
    fleet.release('c-11');
    expect(fleet.accepting).toBe(true);
  });

  it('goes on after the limit when a bot never says it settled, and counts an older bot as settled', async () => {
    let now = 1_000_000;
    const fleet = new BotFleet(4, 30_000, () => now);
    const watch = new BotLagWatch({ redis, prefix, fleet, log });
    launched(fleet, 12);
    await botSays('s-12', 0, false, true);
    await watch.check();
    expect(fleet.accepting).toBe(false);
    let freed = 0;
    fleet.on('freed', () => freed++);
    now += 29_000;
    await watch.check();
    expect(fleet.accepting).toBe(false);
    now += 1_000;
    await watch.check();
    expect(freed).toBe(1);
    expect(fleet.accepting).toBe(true);
    // Still saying it settles: not held against the worker again until it has settled once.
    await watch.check();
    expect(fleet.accepting).toBe(true);

    launched(fleet, 13);
    expect(fleet.accepting).toBe(false);
    await botSays('s-13', 0, false); // an older bot image says nothing of settling
    await watch.check();
    expect(fleet.accepting).toBe(true);
  });

  it('does not wait when the limit is 0', async () => {
    const fleet = new BotFleet(4, 0);
    const watch = new BotLagWatch({ redis, prefix, fleet, log });
    launched(fleet, 14);
    await botSays('s-14', 0, false, true);
    await watch.check();
    expect(fleet.settlingBots).toBe(0);
    expect(fleet.accepting).toBe(true);
  });
});
