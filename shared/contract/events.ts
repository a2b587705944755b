import { z } from 'zod';

/** Why a bot ended. `completed` reasons: the bot did its job; `failed` reasons: it could not. */
export const COMPLETED_REASONS = [
  'stopped',
  'meeting_ended',
  'removed',
  'left_alone',
  'nobody_joined',
  'silence',
  'max_duration',
] as const;
export const FAILED_REASONS = [
  'admission_denied',
  'admission_timeout',
  'meeting_not_found',
  'meeting_unreachable',
  'blocked',
  'sign_in_required',
  'invalid_config',
  'engine_error',
  'crashed',
  /** The container hit its memory limit (BOT_MEMORY_MB) and the kernel killed part of the bot. */
  'out_of_memory',
] as const;
export type CompletedReason = (typeof COMPLETED_REASONS)[number];
export type FailedReason = (typeof FAILED_REASONS)[number];

const base = {
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  /** When the bot saw it happen. */
  at: z.iso.datetime(),
  /** Increases by one per event of a session, so a consumer can spot gaps and duplicates. */
  seq: z.number().int().min(0),
};

export const lifecycleEvent = z.discriminatedUnion('status', [
  z.object({ ...base, status: z.literal('joining') }),
  z.object({ ...base, status: z.literal('awaiting_admission') }),
  z.object({ ...base, status: z.literal('active') }),
  z.object({
    ...base,
    status: z.literal('completed'),
    reason: z.enum(COMPLETED_REASONS),
    detail: z.string().optional(),
  }),
  z.object({
    ...base,
    status: z.literal('failed'),
    reason: z.enum(FAILED_REASONS),
    detail: z.string().optional(),
  }),
]);
export type LifecycleEvent = z.infer<typeof lifecycleEvent>;

export const transcriptSegmentMessage = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  /** Stable per utterance: a mutable segment is re-sent with the same id until `final`. */
  segmentId: z.string().min(1).max(200),
  /** Seconds from the start of the bot's audio capture. */
  start: z.number().min(0),
  end: z.number().min(0),
  text: z.string(),
  /** null: the page gave no speaking evidence for this segment. */
  speaker: z.string().nullable(),
  /** The language asked for, or the one the engine detected; null if neither is known. */
  language: z.string().nullable(),
  absoluteStartTime: z.iso.datetime(),
  absoluteEndTime: z.iso.datetime(),
  final: z.boolean(),
});
export type TranscriptSegmentMessage = z.infer<typeof transcriptSegmentMessage>;

/**
 * How the transcription keeps up with the meeting, sent when that changes: `lagging` once it is
 * behind by the bot's threshold, `caught_up` once it is close again, `audio_dropped` for a stretch
 * of the meeting the engine had to leave untranscribed (never silently).
 */
export const TRANSCRIPTION_HEALTH_KINDS = ['lagging', 'caught_up', 'audio_dropped'] as const;
export type TranscriptionHealthKind = (typeof TRANSCRIPTION_HEALTH_KINDS)[number];

export const transcriptionHealthMessage = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  /** When the bot saw it. */
  at: z.iso.datetime(),
  kind: z.enum(TRANSCRIPTION_HEALTH_KINDS),
  /** How far (seconds) the transcription was behind the meeting then. */
  lagSeconds: z.number().min(0),
  /** audio_dropped: the stretch of the meeting (wall clock) that was not transcribed. */
  droppedFrom: z.iso.datetime().optional(),
  droppedTo: z.iso.datetime().optional(),
});
export type TranscriptionHealthMessage = z.infer<typeof transcriptionHealthMessage>;
