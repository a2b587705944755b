import type { Middleware } from 'koa';
import { AppError, BadRequestError, PayloadTooLargeError } from '../../shared/infra/errors.js';
import type { AppState } from '../context.js';

export interface JsonBodyOptions {
  limitBytes: number;
  /** When true, an empty body (no bytes at all) is accepted and read as `{}`. */
  allowEmpty?: boolean;
  /** Added to the 413 answer: what to send instead. */
  tooLargeHint?: string;
}

/**
 * Reads and parses a JSON request body into `ctx.state.body`. Runs after authentication, so a bad
 * key is 401 even when the body is also bad.
 */
export function jsonBody(options: JsonBodyOptions): Middleware<AppState> {
  return async (ctx, next) => {
    const declaredLength = Number(ctx.get('Content-Length') || 'NaN');
    const hasBody = ctx.request.length > 0 || Boolean(ctx.get('Transfer-Encoding')) || declaredLength > 0;
    if (!hasBody && options.allowEmpty) {
      ctx.state.body = {};
      return next();
    }
    if (!ctx.is('application/json')) {
      throw new BadRequestError('Content-Type must be application/json');
    }
    if (Number.isFinite(declaredLength) && declaredLength > options.limitBytes) {
      throw new PayloadTooLargeError(options.limitBytes, options.tooLargeHint);
    }
    let raw: string;
    try {
      raw = await readBody(ctx.req, options.limitBytes, options.tooLargeHint);
    } catch (error) {
      if (!isClientAbort(error)) throw error;
      // The client's doing, not ours: anyone can cause it at will, so it is no error (and no 503, as
      // the connection reset would otherwise be taken for a lost database connection).
      ctx.state.log.info({ reason: (error as Error).message }, 'client closed the connection mid-body');
      throw new ClientClosedRequestError();
    }
    if (raw.trim().length === 0) {
      if (options.allowEmpty) {
        ctx.state.body = {};
        return next();
      }
      throw new BadRequestError('Request body is empty; expected a JSON object');
    }
    try {
      ctx.state.body = JSON.parse(raw);
    } catch {
      throw new BadRequestError('Request body is not valid JSON');
    }
    return next();
  };
}

/**
 * 499, nginx's "client closed request": nobody receives it, but the access log and the request
 * metrics then tell a client that went away from a request we refused (400) or failed (5xx).
 */
class ClientClosedRequestError extends AppError {
  constructor() {
    super(499, 'Client closed the connection before sending its whole body');
  }
}

/** What Node's request stream throws when the connection closes before the body is complete. */
function isClientAbort(error: unknown): boolean {
  if (error instanceof AppError) return false;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === 'ECONNRESET' ||
    code === 'ECONNABORTED' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    message === 'aborted'
  );
}

async function readBody(
  stream: AsyncIterable<Buffer | string>,
  limitBytes: number,
  tooLargeHint: string | undefined,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buffer.length;
    if (total > limitBytes) throw new PayloadTooLargeError(limitBytes, tooLargeHint);
    chunks.push(buffer);
  }
  const bytes = Buffer.concat(chunks);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BadRequestError('Request body is not valid UTF-8');
  }
}
