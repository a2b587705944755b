import type { z } from 'zod';

/**
 * The one codec of every Redis stream message between bots and workers (events, segments,
 * commands): each entry carries one field, `data`, holding the message's JSON, validated with the
 * contract's schema when read.
 */
export const STREAM_FIELD = 'data';

/** The field/value pairs of an entry holding `message` (spread them into XADD). */
export function streamFields(message: unknown): [typeof STREAM_FIELD, string] {
  return [STREAM_FIELD, JSON.stringify(message)];
}

/** The raw `data` value of an entry's flat field/value list, if it has one. */
export function streamData(fields: readonly string[]): string | undefined {
  for (let index = 0; index + 1 < fields.length; index += 2) {
    if (fields[index] === STREAM_FIELD) return fields[index + 1];
  }
  return undefined;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A message's JSON, validated: a message that fails here can never be applied. */
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

/** An entry read from a stream, decoded with the message's schema. */
export function decodeStreamEntry<Schema extends z.ZodType>(
  schema: Schema,
  fields: readonly string[],
): Parsed<z.infer<Schema>> {
  return parseStreamJson(schema, streamData(fields));
}
