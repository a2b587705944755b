import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../shared/infra/logger.js';
import type { AppState } from '../context.js';

const INCOMING_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Gives every request an id (the caller's X-Request-Id when sane), a child logger, and an access log line. */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const startedAt = performance.now();
    try {
      await next();
    } finally {
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          userId: ctx.state.auth?.user.id,
          durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
        },
        'request',
      );
    }
  };
}
