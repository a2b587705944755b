import type { Context, Middleware } from 'koa';
import { type ZodType, z } from 'zod';
import { SimulatorError } from './errors.js';
import { MEET_CODE_PATTERN, TEAMS_ID_PATTERN } from './ids.js';

const MAX_BODY_BYTES = 256 * 1024;

/** Reads a JSON body (empty means `{}`) and validates it; problems become 400s listing each issue. */
export async function readJson<T>(ctx: Context, schema: ZodType<T>): Promise<T> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_BODY_BYTES) throw new SimulatorError(400, `body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  let raw: unknown = {};
  if (text.length > 0) {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new SimulatorError(400, 'body is not valid JSON');
    }
  }
  return parseOr400(schema, raw);
}

export function parseOr400<T>(schema: ZodType<T>, raw: unknown): T {
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`,
    );
    throw new SimulatorError(400, `invalid request: ${issues.join('; ')}`, issues);
  }
  return result.data;
}

/** `{ "error": ... }` bodies for our errors; anything else is a 500 whose details stay in the log. */
export function errorBodies(log: (error: unknown) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof SimulatorError) {
        ctx.status = error.status;
        ctx.body =
          error.details === undefined
            ? { error: error.message }
            : { error: error.message, details: error.details };
        return;
      }
      log(error);
      ctx.status = 500;
      ctx.body = { error: 'internal error' };
    }
  };
}

/**
 * Any platform's id shape. Meet's never overlaps the numeric ones; Zoom's (9–11 digits) fall within
 * Teams', and the registry keeps ids unique across platforms, so an id alone names a meeting.
 */
export const meetingIdParam = z
  .string()
  .refine((id) => MEET_CODE_PATTERN.test(id) || TEAMS_ID_PATTERN.test(id), 'not a meeting id');
