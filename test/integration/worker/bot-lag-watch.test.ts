import { afterAll, describe, expect, it } from 'vitest';
import { botAliveKey } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { BotFleet } from '../../../worker/bot-fleet.js';
import { BotLagWatch } from '../../../worker/bot-lag-watch.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('lag-watch-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const redis = createTestRedis();
const prefix = uniquePrefix('lag-watch');

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

async function botSays(sessionId: string, lagSeconds: number, lagging: boolean): Promise<void> {
  await redis.set(
    botAliveKey(prefix, sessionId),
    JSON.stringify({ at: Date.now(), lagSeconds, lagging }),
    'PX',
    8000,
  );
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
