import type { z } from 'zod';
import { type Parsed, parseStreamJson } from '../../shared/contract/stream-codec.js';
import type { StreamBinding, StreamMessage } from './stream-consumer.js';

/**
 * The meeting and session a message belongs to: those of the bot whose stream it came through,
 * never the ids the message names. A message naming others is refused (the caller dead-letters it
 * with this reason): a bot may only ever write into its own meeting. Messages of the legacy shared
 * streams (bots launched by an older worker) carry the only identity there is, their own.
 */
export function boundIdentity(
  message: Pick<StreamMessage, 'stream' | 'binding'>,
  named: StreamBinding,
): Parsed<StreamBinding> {
  const { binding } = message;
  if (binding === null)
    return { ok: true, value: { meetingId: named.meetingId, sessionId: named.sessionId } };
  if (named.meetingId !== binding.meetingId || named.sessionId !== binding.sessionId) {
    return {
      ok: false,
      reason:
        `message names meeting ${named.meetingId} session ${named.sessionId} but came through ` +
        `the stream of meeting ${binding.meetingId} session ${binding.sessionId}`,
    };
  }
  return { ok: true, value: binding };
}

/**
 * A stream message read for ingest: its data parsed against `schema`, then bound to the meeting and
 * session of the stream it came through (boundIdentity). Either failure is the reason the caller
 * dead-letters it with.
 */
export function readBoundMessage<Schema extends z.ZodType<StreamBinding>>(
  schema: Schema,
  message: Pick<StreamMessage, 'stream' | 'binding' | 'data'>,
): Parsed<{ value: z.infer<Schema>; identity: StreamBinding }> {
  const parsed = parseStreamJson(schema, message.data);
  if (!parsed.ok) return parsed;
  const identity = boundIdentity(message, parsed.value);
  if (!identity.ok) return identity;
  return { ok: true, value: { value: parsed.value, identity: identity.value } };
}
