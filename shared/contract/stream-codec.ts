import type { z } from 'zod';

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A stream message's JSON, validated: a message that fails here can never be applied. */
export function parseStreamJson<Schema extends z.ZodType>(
  schema: Schema,
  data: string | undefined,
): Parsed<z.infer<Schema>> {
  if (data === undefined) return { ok: false, reason: 'message has no data field' };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { ok: false, reason: 'data is not valid JSON' };
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: `invalid message: ${issue?.path.join('.') || '(root)'}: ${issue?.message}` };
  }
  return { ok: true, value: result.data };
}
