import type { Queue } from 'bullmq';
import type { Middleware } from 'koa';
import { Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX, mayScrape } from '../shared/infra/metrics.js';
import type { AppState } from './context.js';

const QUEUE_STATES = ['waiting', 'prioritized', 'active', 'delayed', 'failed', 'completed'] as const;

/** The API's series: request latency by route and status, and the depth of every queue it shows. */
export function apiMetrics(registry: Registry, queues: readonly Queue[]) {
  const requests = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_jobs`,
    help: 'Jobs in each BullMQ queue, by state (read from Redis at each scrape)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        queues.map(async (queue) => {
          const counts = await queue.getJobCounts(...QUEUE_STATES).catch(() => undefined);
          for (const state of QUEUE_STATES) {
            if (counts) this.set({ queue: queue.name, state }, counts[state] ?? 0);
          }
        }),
      );
    },
  });

  /** Times every request; the route is the pattern it matched (`/meetings/:id`), never the raw path. */
  const timing: Middleware<AppState> = async (ctx, next) => {
    const stop = requests.startTimer();
    try {
      await next();
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      stop({ method: ctx.method, route, status: String(ctx.status) });
    }
  };

  /** GET /metrics in Prometheus' text format. */
  const endpoint = (token: string | undefined): Middleware<AppState> => {
    return async (ctx, next) => {
      if (ctx.path !== '/metrics') return next();
      if (ctx.method !== 'GET') {
        ctx.status = 405;
        ctx.set('Allow', 'GET');
        return;
      }
      if (!mayScrape(ctx.get('Authorization') || undefined, token)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer');
        ctx.body = { error: 'Unauthorized' };
        return;
      }
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    };
  };
  return { timing, endpoint };
}
