import { Router } from '@koa/router';
import { withTimeout } from '../../shared/infra/async.js';
import type { AppState } from '../context.js';

export type ReadinessCheck = () => Promise<void>;

/** /healthz: the process answers. /readyz: Postgres and Redis answer too, each within the timeout. */
export function healthRouter(checks: Record<string, ReadinessCheck>, timeoutMs = 2000): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), timeoutMs);
          return [name, 'ok'] as const;
        } catch (error) {
          ctx.state.log.warn({ err: error, check: name }, 'readiness check failed');
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) };
  });
  return router;
}
