import type { Middleware } from 'koa';
import { AppError } from '../../shared/infra/errors.js';
import { isTransientStoreError } from '../../shared/infra/store-errors.js';
import type { AppState } from '../context.js';

interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

const GENERIC_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Request body too large',
  415: 'Unsupported media type',
  501: 'Not implemented',
};

/** How long a client should wait before trying again while the database is unreachable. */
const DATABASE_RETRY_AFTER_SECONDS = '5';

/**
 * Maps every failure to the spec's error body, `{ "error": "..." }` and nothing else.
 * Unknown errors become 500 with the request id logged, never a stack trace in the response;
 * Postgres being unreachable (a restart, a failover) is a 503 with `Retry-After`, not a 500.
 */
export function errorBodies(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      // A method no route implements at all (TRACE, PROPFIND...) is a wrong method like any other.
      if (ctx.status === 501) ctx.status = 405;
      // Answers nobody wrote a body for (unknown route: 404, wrong method: 405) still get a JSON error.
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        const status = ctx.status;
        ctx.body = { error: GENERIC_MESSAGES[status] ?? 'Request failed' };
        ctx.status = status;
      }
    } catch (caught) {
      const { status, message, headers } = errorAnswer(caught);
      if (status >= 500) {
        ctx.state.log?.error({ err: caught }, 'request failed');
      }
      for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
      ctx.status = status;
      ctx.body = { error: message };
    }
  };
}

/**
 * What a failure answers: its status, the `error` text and headers. Also what an MCP tool's error
 * result says (api/mcp/), so a tool and its REST route fail with the same words.
 */
export function errorAnswer(caught: unknown): {
  status: number;
  message: string;
  headers: Record<string, string>;
} {
  if (caught instanceof AppError)
    return { status: caught.status, message: caught.message, headers: caught.headers };
  if (isTransientStoreError(caught))
    return {
      status: 503,
      message: 'Database unavailable; try again shortly',
      headers: { 'Retry-After': DATABASE_RETRY_AFTER_SECONDS },
    };
  const error = (caught ?? {}) as HttpLikeError;
  const status =
    typeof error.status === 'number'
      ? error.status
      : typeof error.statusCode === 'number'
        ? error.statusCode
        : 500;
  if (status < 400 || status >= 600) return { status: 500, message: 'Internal server error', headers: {} };
  if (status >= 500 && status !== 501) return { status, message: 'Internal server error', headers: {} };
  const headers: Record<string, string> = {};
  if (error.headers && typeof error.headers === 'object') {
    for (const [name, value] of Object.entries(error.headers as Record<string, unknown>)) {
      if (typeof value === 'string') headers[name] = value;
    }
  }
  const exposed = error.expose === true && typeof error.message === 'string' && error.message.length > 0;
  return {
    status,
    message: exposed ? (error.message as string) : (GENERIC_MESSAGES[status] ?? 'Request failed'),
    headers,
  };
}
