import { randomUUID } from 'node:crypto';
import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { SPEAK_AUDIO_MAX_BYTES, type SpeakAudioFormat } from '../contract/commands.js';
import type { Platform } from '../contract/platforms.js';
import {
  BadRequestError,
  NotFoundError,
  ServiceUnavailableError,
  SpecErrors,
  TooManyRequestsError,
} from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import type { Logger } from '../infra/logger.js';
import type { OutboundAddressPolicy } from '../infra/outbound-address-policy.js';
import { findLiveMeeting } from '../meetings/live-store.js';
import type { MeetingRecord } from '../meetings/store.js';
import { type BotCommands, CommandStreamFullError } from './command-channel.js';
import { type PcmLayout, WAV_HEADER_BYTES, wavOfPcm } from './pcm-wav.js';
import { fetchRemoteMedia, type MediaFetchTimes } from './remote-media.js';
import { estimatedSpeechSeconds, type SpeechQueue } from './speech-queue.js';

export interface SpeechDeps {
  db: Knex;
  commands: BotCommands;
  speechQueue: SpeechQueue;
  webhookPolicy: OutboundAddressPolicy;
  log: Logger;
  /** SPEAK_QUEUE_MAX */
  speakQueueMax: number;
  /** SPEAK_AUDIO_URL_MAX_BYTES */
  audioUrlMaxBytes: number;
  /** WEBHOOK_TIMEOUT_MS (idle) and MEDIA_URL_FETCH_DEADLINE_MS (whole fetch) */
  mediaFetch: MediaFetchTimes;
}

/** A clip's format: one the bot's page decodes, or raw PCM the API wraps in a WAV header first. */
export type ClipFormat = SpeakAudioFormat | { pcm: PcmLayout };

/** What to say: text the bot synthesises, a clip given inline, or a clip the API fetches. */
export type SpeechContent =
  | { text: string }
  | { audio: { format: ClipFormat; base64: string } }
  | { audioUrl: { url: string; format: ClipFormat } };

/** The clip as the bot's command carries it: raw PCM becomes a WAV of at most SPEAK_AUDIO_MAX_BYTES. */
function commandAudio(
  format: ClipFormat,
  bytes: { base64: string } | { raw: Uint8Array },
  field: string,
): { format: SpeakAudioFormat; base64: string } {
  if (typeof format === 'string') {
    return { format, base64: 'base64' in bytes ? bytes.base64 : Buffer.from(bytes.raw).toString('base64') };
  }
  const pcm = 'raw' in bytes ? bytes.raw : Buffer.from(bytes.base64, 'base64');
  const wav = wavOfPcm(pcm, format.pcm, field);
  if (wav.length > SPEAK_AUDIO_MAX_BYTES) {
    throw new BadRequestError(
      `${field}: PCM must be at most ${SPEAK_AUDIO_MAX_BYTES - WAV_HEADER_BYTES} bytes (it is sent on as a WAV of at most ${SPEAK_AUDIO_MAX_BYTES})`,
    );
  }
  return { format: 'wav', base64: wav.toString('base64') };
}

export interface SpeakRequest {
  content: SpeechContent;
  voice?: string | undefined;
  language?: string | undefined;
}

export interface SpeakAccepted {
  meeting: MeetingRecord;
  requestId: string;
  /** Requests the bot has waiting or playing, this one included (an estimate: speech-queue.ts). */
  queued: number;
}

async function activeMeeting(
  deps: Pick<SpeechDeps, 'db'>,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord> {
  const live = await findLiveMeeting(deps.db, auth.user.id, platform, nativeMeetingId);
  if (live?.status !== 'active') throw new NotFoundError(SpecErrors.botNotFound);
  return live;
}

function redisUnavailable(deps: SpeechDeps, error: unknown, meetingId: number): ServiceUnavailableError {
  deps.log.error({ err: error, meetingId }, 'could not send the speech command to the bot');
  return new ServiceUnavailableError('Redis unavailable; nothing was sent to the bot. Try again shortly.');
}

/** Queues speech on the meeting's running bot, through its durable command stream. */
export async function speak(
  deps: SpeechDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  request: SpeakRequest,
): Promise<SpeakAccepted> {
  const meeting = await activeMeeting(deps, auth, platform, nativeMeetingId);
  const { content } = request;
  let text: string | undefined;
  let audio: { format: SpeakAudioFormat; base64: string } | undefined;
  if ('text' in content) text = content.text;
  else if ('audio' in content) {
    audio = commandAudio(content.audio.format, { base64: content.audio.base64 }, 'audio_base64');
  } else {
    const bytes = await fetchRemoteMedia('audio_url', content.audioUrl.url, deps.webhookPolicy, {
      maxBytes: deps.audioUrlMaxBytes,
      times: deps.mediaFetch,
      accept: 'audio/*',
    });
    audio = commandAudio(content.audioUrl.format, { raw: bytes }, 'audio_url');
  }
  const requestId = randomUUID();
  const estimate = estimatedSpeechSeconds(
    text !== undefined ? { text } : { audioBytes: Math.floor(((audio?.base64.length ?? 0) * 3) / 4) },
  );
  let queued: number | null;
  try {
    queued = await deps.speechQueue.reserve(meeting.id, requestId, estimate, deps.speakQueueMax);
  } catch (error) {
    throw redisUnavailable(deps, error, meeting.id);
  }
  if (queued === null) {
    throw new TooManyRequestsError(
      `The bot's speech queue is full (at most ${deps.speakQueueMax} requests waiting or playing); try again when it has spoken, or stop it with DELETE`,
      { 'Retry-After': String(Math.max(1, Math.ceil(estimate))) },
    );
  }
  try {
    await deps.commands.send(meeting.id, {
      type: 'speak',
      requestId,
      ...(text !== undefined && { text }),
      ...(audio !== undefined && { audio }),
      ...(request.voice !== undefined && { voice: request.voice }),
      ...(request.language !== undefined && { language: request.language }),
      issuedAt: new Date().toISOString(),
    });
  } catch (error) {
    if (error instanceof CommandStreamFullError) throw error;
    throw redisUnavailable(deps, error, meeting.id);
  }
  return { meeting, requestId, queued };
}

/** Interrupts the bot: what it is saying stops, its queue is dropped and its microphone goes off. */
export async function stopSpeaking(
  deps: SpeechDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord> {
  const meeting = await activeMeeting(deps, auth, platform, nativeMeetingId);
  try {
    await deps.commands.send(meeting.id, { type: 'speak.stop', issuedAt: new Date().toISOString() });
    await deps.speechQueue.clear(meeting.id);
  } catch (error) {
    throw redisUnavailable(deps, error, meeting.id);
  }
  return meeting;
}
