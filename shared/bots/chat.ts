import { randomUUID } from 'node:crypto';
import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Platform } from '../contract/platforms.js';
import { NotFoundError, ServiceUnavailableError, SpecErrors } from '../infra/errors.js';
import { findLiveMeeting } from '../meetings/live-store.js';
import type { MeetingRecord } from '../meetings/store.js';
import { CommandStreamFullError } from './command-channel.js';
import type { BotServiceDeps } from './service.js';

export interface QueuedChatMessage {
  meeting: MeetingRecord;
  id: string;
  text: string;
}

/**
 * POST /bots/{platform}/{native_meeting_id}/chat: asks the meeting's active bot to write `text` in
 * the chat, through the meeting's durable command stream (as PUT …/config does). Only an active bot
 * takes it (404 `Bot not found` otherwise); the message shows in GET …/chat once the bot read it back.
 */
export async function sendChatMessage(
  deps: Pick<BotServiceDeps, 'db' | 'commands' | 'log'>,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  text: string,
): Promise<QueuedChatMessage> {
  const live = await findLiveMeeting(deps.db, auth.user.id, platform, nativeMeetingId);
  if (live?.status !== 'active') throw new NotFoundError(SpecErrors.botNotFound);
  const id = randomUUID();
  try {
    await deps.commands.send(live.id, { type: 'chat.send', id, text, issuedAt: new Date().toISOString() });
  } catch (error) {
    if (error instanceof CommandStreamFullError) throw error;
    deps.log.error({ err: error, meetingId: live.id }, 'could not send the chat message to the bot');
    throw new ServiceUnavailableError('Redis unavailable; the chat message was not sent. Try again shortly.');
  }
  return { meeting: live, id, text };
}
