import type { Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import type { Logger } from '../../shared/infra/logger.js';
import { METRIC_PREFIX } from '../../shared/infra/metrics.js';

/** What INFO memory says of Redis's memory and its limit. */
export interface RedisMemory {
  usedBytes: number;
  /** 0: no limit set. */
  maxBytes: number;
  policy: string;
}

/** The fields of `INFO memory` the watch reads; undefined when the answer lacks them. */
export function parseInfoMemory(info: string): RedisMemory | undefined {
  const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const used = Number(field('used_memory'));
  const max = Number(field('maxmemory'));
  const policy = field('maxmemory_policy');
  if (!Number.isFinite(used) || !Number.isFinite(max) || policy === undefined) return undefined;
  return { usedBytes: used, maxBytes: max, policy };
}

export interface RedisMemoryWatchOptions {
  redis: Redis;
  registry: Registry;
  log: Logger;
  /** REDIS_MEMORY_WARN_RATIO: the share of maxmemory past which the worker warns. */
  warnRatio: number;
  intervalMs: number;
  /** While still past the threshold, the warning is repeated this often. */
  repeatWarningMs?: number;
}

/**
 * Watches Redis's memory against its `maxmemory` (INFO memory), for the worker's /metrics and its
 * log. Redis holds the queues, the bots' streams and their commands: full, with `noeviction`, it
 * refuses writes (launches, ingest, stops); with an evicting policy it would drop queue data. So:
 * - gauges of the bytes used, the limit and their ratio;
 * - a warning when the ratio passes the threshold (again every `repeatWarningMs` while it stays
 *   past it) and a line when it is back under;
 * - said once: no `maxmemory` (nothing bounds Redis but the host), or a policy that evicts keys.
 * Every worker reads the same Redis, so each says it: fine for a handful of workers.
 */
export class RedisMemoryWatch {
  private readonly loop: PeriodicLoop;
  private readonly used: Gauge;
  private readonly max: Gauge;
  private readonly ratio: Gauge;
  private warnedAt: number | undefined;
  private saidUnlimited = false;
  private saidPolicy: string | undefined;

  constructor(private readonly options: RedisMemoryWatchOptions) {
    const registers = [options.registry];
    this.used = new Gauge({
      name: `${METRIC_PREFIX}redis_memory_used_bytes`,
      help: "Redis's used_memory (INFO memory), as this worker last read it",
      registers,
    });
    this.max = new Gauge({
      name: `${METRIC_PREFIX}redis_memory_max_bytes`,
      help: "Redis's maxmemory (0: no limit)",
      registers,
    });
    this.ratio = new Gauge({
      name: `${METRIC_PREFIX}redis_memory_used_ratio`,
      help: 'used_memory / maxmemory (0 while Redis has no maxmemory: see meetbot_redis_memory_max_bytes)',
      registers,
    });
    this.loop = new PeriodicLoop({
      intervalMs: options.intervalMs,
      task: () => this.check(),
      onError: (error) => options.log.warn({ err: error }, "could not read Redis's memory"),
      runAtStart: true,
      holdsProcess: false,
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One reading: the gauges, and the log lines it calls for. */
  async check(now = Date.now()): Promise<RedisMemory | undefined> {
    const { log, warnRatio } = this.options;
    const memory = parseInfoMemory(await this.options.redis.info('memory'));
    if (!memory) {
      log.warn('INFO memory did not say used_memory, maxmemory and maxmemory_policy');
      return undefined;
    }
    this.used.set(memory.usedBytes);
    this.max.set(memory.maxBytes);
    if (memory.policy !== 'noeviction' && this.saidPolicy !== memory.policy) {
      this.saidPolicy = memory.policy;
      log.warn(
        { policy: memory.policy },
        'Redis may evict keys when full (maxmemory-policy is not noeviction): queued jobs and bot streams could be lost; set maxmemory-policy noeviction (docs/operations.md)',
      );
    }
    if (memory.maxBytes === 0) {
      this.ratio.set(0);
      if (!this.saidUnlimited) {
        this.saidUnlimited = true;
        log.warn(
          { usedBytes: memory.usedBytes },
          'Redis has no maxmemory: nothing bounds its memory but the host; set maxmemory with maxmemory-policy noeviction (docs/operations.md)',
        );
      }
      return memory;
    }
    this.saidUnlimited = false;
    const ratio = memory.usedBytes / memory.maxBytes;
    this.ratio.set(ratio);
    const fields = {
      usedBytes: memory.usedBytes,
      maxBytes: memory.maxBytes,
      ratio: Number(ratio.toFixed(3)),
    };
    if (ratio >= warnRatio) {
      const repeatMs = this.options.repeatWarningMs ?? 5 * 60_000;
      if (this.warnedAt === undefined || now - this.warnedAt >= repeatMs) {
        this.warnedAt = now;
        log.warn(
          { ...fields, warnRatio },
          'Redis memory is past the warning threshold: once full it refuses writes (launches, ingest, commands)',
        );
      }
    } else if (this.warnedAt !== undefined) {
      this.warnedAt = undefined;
      log.info(fields, 'Redis memory is back under the warning threshold');
    }
    return memory;
  }
}
