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
  /** The page left the platform's hosts, or the join form never led to a join request. */
  'blocked',
  /** The platform refused the join outright ("You can't join this video call"): often suspected automation. */
  'blocked_by_platform',
  /** A captcha or "verify you're a person" screen stands before the join. */
  'verification_required',
  'sign_in_required',
  /**
   * A signed-in bot (POST /bots `authenticated`) met a sign-in screen: its bot account's session no
   * longer works, or the meeting wants another account. The worker marks the account `expired`, out
   * of the pool, once enough users' meetings showed it (worker/accounts/bot-account-expiry.ts).
   */
  'sign_in_expired',
  'invalid_config',
  'engine_error',
  'crashed',
  /** The container hit its memory limit (BOT_MEMORY_MB) and the kernel killed part of the bot. */
  'out_of_memory',
] as const;
/**
 * Why the worker failed a meeting before its bot could run: `no_bot_account_available` when a
 * signed-in bot (POST /bots `authenticated`) found no active bot account of its platform with room,
 * or its user already holds its share of the pool (BOT_ACCOUNT_USER_SHARE). And an event that keeps
 * the status (`from` = `to` = `failed`) after a `sign_in_expired`: `bot_account_expired` when the bot
 * account it names was marked expired and left the pool (enough users' meetings met a sign-in screen
 * with it, BOT_ACCOUNT_EXPIRY_USERS), `bot_account_kept` when it stays in the pool for want of that.
 */
export const BotAccountReasons = {
  noneAvailable: 'no_bot_account_available',
  expired: 'bot_account_expired',
  kept: 'bot_account_kept',
} as const;
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

/**
 * The latest a segment may start or end, in seconds from the start of capture: seven days, well past
 * the longest meeting a bot stays in (BOT_MAX_DURATION_SECONDS is capped at it). A time beyond it is a
 * broken or hostile bot, so the message is refused at ingest rather than stored to print nonsense cues.
 */
export const SEGMENT_TIME_MAX_SECONDS = 7 * 24 * 3600;

const segmentTime = z
  .number()
  .min(0, 'must be at least 0 seconds')
  .max(SEGMENT_TIME_MAX_SECONDS, `must be at most ${SEGMENT_TIME_MAX_SECONDS} seconds (7 days)`);

export const transcriptSegmentMessage = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  /** Stable per utterance: a mutable segment is re-sent with the same id until `final`. */
  segmentId: z.string().min(1).max(200),
  /** Seconds from the start of the bot's audio capture. */
  start: segmentTime,
  end: segmentTime,
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
 * of the meeting left untranscribed (never silently): by the engine, too far behind to take it, or
 * by the page's capture, whose audio clock skipped it on a host short of CPU.
 */
export const TRANSCRIPTION_HEALTH_KINDS = ['lagging', 'caught_up', 'audio_dropped'] as const;
export type TranscriptionHealthKind = (typeof TRANSCRIPTION_HEALTH_KINDS)[number];
/** What left audio out: the engine (too far behind) or the page's capture (its clock skipped it). */
export const AUDIO_DROPPED_BY = ['engine', 'capture'] as const;
export type AudioDroppedBy = (typeof AUDIO_DROPPED_BY)[number];

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
  /** audio_dropped: what left it out (absent: the engine, as bots before this field say). */
  droppedBy: z.enum(AUDIO_DROPPED_BY).optional(),
  /** audio_dropped by the capture: seconds of audio lost within the stretch (spread over it). */
  droppedSeconds: z.number().min(0).optional(),
});
export type TranscriptionHealthMessage = z.infer<typeof transcriptionHealthMessage>;

/** The largest encoded chunk a bot sends (base64 of ~5 s of 24 kbit/s Opus is ≈ 20 KB). */
export const RECORDING_CHUNK_MAX_BASE64 = 4_000_000;

/**
 * One slice of a bot's recording: its Ogg Opus stream, cut in numbered chunks sent while the
 * meeting runs; the chunks in order are the file. The last one says `final` (and `error` when the
 * recorder failed: the recording keeps what it got).
 */
export const recordingChunkMessage = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  seq: z.number().int().min(0),
  /** Base64 of the chunk's bytes (the final chunk may be empty). */
  data: z
    .string()
    .max(RECORDING_CHUNK_MAX_BASE64)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'),
  /** Seconds of audio recorded up to the end of this chunk. */
  endSeconds: z.number().min(0),
  /** The transcript time (seconds) the recording's time zero stands for: 0 unless a relaunch. */
  startSeconds: z.number().min(0),
  final: z.boolean(),
  error: z.string().max(1000).optional(),
});
export type RecordingChunkMessage = z.infer<typeof recordingChunkMessage>;

/** The longest chat message text stored; longer ones are cut (a page may show what the API would refuse). */
export const CHAT_MESSAGE_MAX_CHARS = 10_000;

/**
 * A message the bot read in the meeting chat (its own included, `fromBot`). `messageKey` is what the
 * page identifies it by (Meet's data-message-id, Teams' data-mid with the sender), the same for every
 * look and every bot of the meeting, so a message seen twice is stored once.
 */
export const chatMessageEvent = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  messageKey: z.string().min(1).max(300),
  sender: z.string().max(200),
  text: z.string().min(1).max(CHAT_MESSAGE_MAX_CHARS),
  fromBot: z.boolean(),
  /** When it was written: the page's own time when it shows one to the second, else when the bot first saw it. */
  sentAt: z.iso.datetime(),
  /** `sentAt` on the transcript's time line (seconds from its origin, as segments' `start`). */
  seconds: segmentTime,
});
export type ChatMessageEvent = z.infer<typeof chatMessageEvent>;

/** What a bot reports of the people in its meeting (issue 34): each a change it saw, never a steady state. */
export const PARTICIPANT_EVENT_TYPES = [
  'participant.joined',
  'participant.left',
  'participant.speech_started',
  'participant.speech_stopped',
] as const;
export type ParticipantEventType = (typeof PARTICIPANT_EVENT_TYPES)[number];

/** The longest participant name stored; longer ones are cut (a page shows what it likes). */
export const PARTICIPANT_NAME_MAX_CHARS = 200;

/**
 * One participant change a bot saw. `seq` counts the session's participant messages from 0, so
 * (`sessionId`, `seq`) names a message for good: one delivered twice is stored once.
 */
export const participantEventMessage = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  seq: z.number().int().min(0),
  type: z.enum(PARTICIPANT_EVENT_TYPES),
  name: z.string().min(1).max(PARTICIPANT_NAME_MAX_CHARS),
  /** When it happened (wall clock). */
  at: z.iso.datetime(),
  /** `at` on the transcript's time line (seconds from its origin, as segments' `start`). */
  seconds: segmentTime,
});
export type ParticipantEventMessage = z.infer<typeof participantEventMessage>;
