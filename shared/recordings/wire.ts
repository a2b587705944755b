import { z } from 'zod';
import { PLATFORMS } from '../contract/platforms.js';
import { isoTimestamp } from '../infra/timestamps.js';

/** Recordings as the API shows them (responses; also the OpenAPI document's schemas). */

/** The states a caller can see: a recording being deleted is already gone for them. */
export const VISIBLE_RECORDING_STATES = ['recording', 'ready', 'failed'] as const;
export type VisibleRecordingState = (typeof VISIBLE_RECORDING_STATES)[number];

const recordingShape = {
  id: z.number().int(),
  format: z.string().describe('ogg_opus: Ogg Opus, 16 kHz mono speech'),
  state: z
    .enum(VISIBLE_RECORDING_STATES)
    .describe(
      'recording: the bot is still recording (the media answers 409); ready: complete, the media plays; failed: see `error` (GET /recordings/{id})',
    ),
  start: z
    .number()
    .describe(
      "The transcript time (seconds, as segments' `start`) the recording's time zero stands for: a segment is at `segment.start - start` in the recording",
    ),
  duration: z.number().describe('Seconds of audio'),
  size: z.number().int().describe('Bytes (0 until the recording is ready)'),
  created_at: isoTimestamp,
  completed_at: isoTimestamp.nullable(),
  media_url: z
    .string()
    .describe(
      'GET it for the audio (byte ranges supported). It carries a signed token that opens this recording only, so a browser <audio> element can play it without an API key; treat it as a secret. It works for RECORDING_MEDIA_LINK_TTL_SECONDS (default one hour) after this answer, and stops earlier when the owner rotates their media links (POST /recordings/media-links/rotate), loses their last API key (a revoked key rotates them too) or is deleted; fetch the recording again for a fresh one',
    ),
};

export const recordingSchema = z.object(recordingShape).meta({ id: 'Recording' });

export const recordingDetailSchema = z
  .object({
    ...recordingShape,
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
    content_type: z.string().describe('The media’s Content-Type'),
    error: z.string().nullable().describe('Why a failed recording failed'),
  })
  .meta({ id: 'RecordingDetail' });

export const rotatedMediaLinksSchema = z.object({ message: z.string() }).meta({ id: 'RotatedMediaLinks' });

export const deletedRecordingSchema = z
  .object({ message: z.string(), id: z.number().int() })
  .meta({ id: 'DeletedRecording' });
