import { withTimeout } from '../../shared/infra/async.js';
import { noAuth, routesOf } from './route.js';

export type ReadinessCheck = () => Promise<void>;

export interface HealthRouteDeps {
  checks: Record<string, ReadinessCheck>;
}

const CHECK_TIMEOUT_MS = 2000;
const route = routesOf<HealthRouteDeps>();

/** /healthz: the process answers. /readyz: Postgres and Redis answer too, each within the timeout. */
export const healthRoutes = [
  route({
    method: 'get',
    path: '/healthz',
    auth: noAuth,
    summary: 'Liveness',
    responses: { 200: { description: 'The process is up' } },
    handler(ctx) {
      ctx.body = { status: 'ok' };
    },
  }),

  route({
    method: 'get',
    path: '/readyz',
    auth: noAuth,
    summary: 'Readiness: Postgres and Redis reachable',
    responses: { 200: { description: 'Ready' }, 503: { description: 'Not ready' } },
    async handler(ctx, _input, deps) {
      const results = await Promise.all(
        Object.entries(deps.checks).map(async ([name, check]) => {
          try {
            await withTimeout(check(), CHECK_TIMEOUT_MS);
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
    },
  }),
];
