import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisMemoryWatch } from '../../../worker/metrics/redis-memory-watch.js';
import { type OwnRedis, startOwnRedis } from '../../support/redis-server.js';

/**
 * Issue 48: Redis runs with a maxmemory and a policy that never evicts queue data, and the worker
 * says so in its metrics and its log before it fills. A Redis of the test's own: its maxmemory is
 * changed here, which the shared one must not be.
 */

let own: OwnRedis;
let redis: Redis;
const lines: Array<{ level: number; msg: string; ratio?: number }> = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  }),
);

beforeAll(async () => {
  own = await startOwnRedis();
  redis = new Redis(own.url, { maxRetriesPerRequest: 1 });
});

afterAll(async () => {
  redis?.disconnect();
  await own?.destroy();
});

const WARN = 40;
const MIB = 1024 * 1024;

describe('the worker watching Redis memory', () => {
  it('says once that Redis has no maxmemory, warns past the threshold, and shows it in /metrics', async () => {
    const registry = new Registry();
    const watch = new RedisMemoryWatch({ redis, registry, log, warnRatio: 0.8, intervalMs: 60_000 });
    await redis.config('SET', 'maxmemory-policy', 'noeviction');

    // No limit: one line, however many readings.
    await redis.config('SET', 'maxmemory', '0');
    await watch.check();
    await watch.check();
    expect(lines.filter((line) => line.msg.startsWith('Redis has no maxmemory'))).toHaveLength(1);
    expect(await registry.getSingleMetricAsString('meetbot_redis_memory_used_ratio')).toMatch(
      /^meetbot_redis_memory_used_ratio 0$/m,
    );

    // A limit with room: a ratio, no warning.
    const before = await watch.check();
    const limit = (before?.usedBytes ?? 0) + 16 * MIB;
    await redis.config('SET', 'maxmemory', String(limit));
    const roomy = await watch.check();
    expect(roomy?.maxBytes).toBe(limit);
    expect(
      lines.filter((line) => line.level === WARN && line.msg.startsWith('Redis memory is past')),
    ).toEqual([]);

    // Past 80 %: the warning, with the figures; the gauges say the same. A quarter MiB at a time (a
    // single large write would be refused: its own query buffer counts) until a reading says 85 %.
    const fillers: string[] = [];
    let full = roomy;
    while ((full?.usedBytes ?? 0) / limit < 0.85 && fillers.length < 100) {
      fillers.push(`filler-${fillers.length}`);
      await redis.set(fillers.at(-1) as string, Buffer.alloc(MIB / 4, 1));
      full = await watch.check();
    }
    expect((full?.usedBytes ?? 0) / limit).toBeGreaterThanOrEqual(0.85);
    const warnings = lines.filter((line) =>
      line.msg.startsWith('Redis memory is past the warning threshold'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe(WARN);
    expect(warnings[0]?.ratio).toBeGreaterThanOrEqual(0.8);
    const ratio = await registry.getSingleMetricAsString('meetbot_redis_memory_used_ratio');
    expect(Number(/^meetbot_redis_memory_used_ratio (\S+)$/m.exec(ratio)?.[1])).toBeGreaterThanOrEqual(0.8);
    const max = await registry.getSingleMetricAsString('meetbot_redis_memory_max_bytes');
    expect(max).toContain(`meetbot_redis_memory_max_bytes ${limit}`);

    // noeviction: a write past the limit is refused, and nothing already there is dropped for it.
    await expect(redis.set('more', Buffer.alloc(4 * MIB, 2))).rejects.toThrow(/OOM/);
    for (const filler of fillers) expect(await redis.strlen(filler)).toBe(MIB / 4);

    // Back under: said once.
    await redis.del(...fillers);
    await watch.check();
    expect(lines.filter((line) => line.msg.startsWith('Redis memory is back under'))).toHaveLength(1);
  });

  it('warns when the policy may evict keys', async () => {
    const watch = new RedisMemoryWatch({
      redis,
      registry: new Registry(),
      log,
      warnRatio: 0.8,
      intervalMs: 60_000,
    });
    await redis.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await watch.check();
    await watch.check();
    expect(lines.filter((line) => line.msg.startsWith('Redis may evict keys'))).toHaveLength(1);
  });
});
