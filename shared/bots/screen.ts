import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { SCREEN_IMAGE_MAX_BYTES } from '../contract/commands.js';
import type { Platform } from '../contract/platforms.js';
import { NotFoundError, ServiceUnavailableError, SpecErrors } from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import type { Logger } from '../infra/logger.js';
import type { OutboundAddressPolicy } from '../infra/outbound-address-policy.js';
import { findLiveMeeting } from '../meetings/live-store.js';
import type { MeetingRecord } from '../meetings/store.js';
import { type BotCommands, CommandStreamFullError } from './command-channel.js';
import { fetchRemoteMedia, type MediaFetchTimes } from './remote-media.js';

export interface ScreenDeps {
  db: Knex;
  commands: BotCommands;
  webhookPolicy: OutboundAddressPolicy;
  log: Logger;
  /** WEBHOOK_TIMEOUT_MS (idle) and MEDIA_URL_FETCH_DEADLINE_MS (whole fetch) */
  mediaFetch: MediaFetchTimes;
}

/** The image to show: given inline, or a URL the API fetches. */
export type ScreenImage = { base64: string } | { url: string };

async function activeMeeting(
  deps: Pick<ScreenDeps, 'db'>,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord> {
  const live = await findLiveMeeting(deps.db, auth.user.id, platform, nativeMeetingId);
  if (live?.status !== 'active') throw new NotFoundError(SpecErrors.botNotFound);
  return live;
}

async function send(deps: ScreenDeps, meeting: MeetingRecord, command: Parameters<BotCommands['send']>[1]) {
  try {
    await deps.commands.send(meeting.id, command);
  } catch (error) {
    if (error instanceof CommandStreamFullError) throw error;
    deps.log.error({ err: error, meetingId: meeting.id }, 'could not send the screen command to the bot');
    throw new ServiceUnavailableError('Redis unavailable; nothing was sent to the bot. Try again shortly.');
  }
}

/** Shows a still image as the running bot's camera, through its durable command stream. */
export async function showImage(
  deps: ScreenDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  image: ScreenImage,
): Promise<MeetingRecord> {
  const meeting = await activeMeeting(deps, auth, platform, nativeMeetingId);
  const base64 =
    'base64' in image
      ? image.base64
      : Buffer.from(
          await fetchRemoteMedia('image_url', image.url, deps.webhookPolicy, {
            maxBytes: SCREEN_IMAGE_MAX_BYTES,
            times: deps.mediaFetch,
            accept: 'image/*',
          }),
        ).toString('base64');
  await send(deps, meeting, { type: 'screen.show', image: { base64 }, issuedAt: new Date().toISOString() });
  return meeting;
}

/** Stops showing the image: the bot's camera goes off. */
export async function stopImage(
  deps: ScreenDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord> {
  const meeting = await activeMeeting(deps, auth, platform, nativeMeetingId);
  await send(deps, meeting, { type: 'screen.stop', issuedAt: new Date().toISOString() });
  return meeting;
}
