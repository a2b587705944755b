import { z } from 'zod';
import { botSessionKeyPrefix } from './streams.js';

/**
 * The meeting audio a bot publishes for the API's audio WebSocket (`/meetings/{id}/audio`): one
 * entry per captured chunk (200 ms of 16 kHz s16le mono), on a stream of the bot's own (its
 * credential reaches it), trimmed to the last AUDIO_STREAM_MAXLEN entries on every append. Only on
 * demand: the bot appends only while its "wanted" key (botAudioWantedKey) says someone listens, so
 * a bot nobody listens to costs Redis one EXISTS a second instead of 32 KB/s. Nothing ingests the
 * stream: it is live only.
 */
export const AUDIO_SAMPLE_RATE = 16_000;

/** Entries kept: 50 chunks of 200 ms, 10 s of audio, about 320 KiB per bot. */
export const AUDIO_STREAM_MAXLEN = 50;

/** The bot's audio stream (under its session's prefix, with its other streams). */
export function botAudioStream(prefix: string, sessionId: string): string {
  return `${botSessionKeyPrefix(prefix, sessionId)}audio`;
}

/**
 * Exists while someone listens to the bot's audio: each audio socket reading the stream SETs it
 * with AUDIO_WANTED_TTL_MS and again every AUDIO_WANTED_REFRESH_MS. Nobody deletes it (another
 * socket, perhaps on another API replica, may still listen): it expires at most a TTL after its
 * last listener left or died. Under the session's prefix, so the bot's own credential reaches it
 * (with EXISTS among its commands: worker/runtime/bot-credentials.ts).
 */
export function botAudioWantedKey(prefix: string, sessionId: string): string {
  return `${botSessionKeyPrefix(prefix, sessionId)}audio:wanted`;
}

/** Three refreshes long: a refresh or two lost to a busy Redis or API does not cut the audio. */
export const AUDIO_WANTED_TTL_MS = 15_000;
export const AUDIO_WANTED_REFRESH_MS = 5_000;
/**
 * How often the bot asks whether someone listens (EXISTS): a new listener's audio starts at most
 * about this much after its socket's `ready`, and a bot nobody listens to sends one small command a
 * second rather than five appends of 6.4 KB.
 */
export const AUDIO_WANTED_CHECK_MS = 1_000;

/** The entry's two fields: the header's JSON, and the PCM bytes. */
export const AUDIO_HEADER_FIELD = 'h';
export const AUDIO_PCM_FIELD = 'pcm';

export const audioChunkHeader = z.object({
  /** Counts the bot's chunks from 0: a gap is audio the bot dropped (Redis too slow) or trimmed. */
  seq: z.number().int().min(0),
  /** Seconds on the transcript's time line (as segments' `start`/`end`). */
  start: z.number().min(0),
  end: z.number().min(0),
  /** Wall clock (ms since the epoch) of the chunk's first sample, from the page's audio clock. */
  startWallMs: z.number(),
  /** Wall clock (ms since the epoch) when the bot had the whole chunk (its capture time). */
  capturedAtMs: z.number(),
  /** Who the bot's speaker attribution names over the chunk; null when no signal saw anyone speak. */
  speaker: z.string().max(500).nullable(),
});
export type AudioChunkHeader = z.infer<typeof audioChunkHeader>;

/** The field/value pairs of one chunk's entry (spread them into XADD). */
export function audioStreamFields(header: AudioChunkHeader, pcm: Buffer): [string, string, string, Buffer] {
  return [AUDIO_HEADER_FIELD, JSON.stringify(header), AUDIO_PCM_FIELD, pcm];
}

/** One chunk read back (XREAD with Buffers); null for an entry that is not one. */
export function parseAudioStreamEntry(
  fields: readonly Buffer[],
): { header: AudioChunkHeader; pcm: Buffer } | null {
  let headerText: string | undefined;
  let pcm: Buffer | undefined;
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const name = fields[index]!.toString();
    if (name === AUDIO_HEADER_FIELD) headerText = fields[index + 1]!.toString();
    else if (name === AUDIO_PCM_FIELD) pcm = fields[index + 1];
  }
  if (headerText === undefined || pcm === undefined || pcm.length % 2 !== 0) return null;
  try {
    const parsed = audioChunkHeader.safeParse(JSON.parse(headerText));
    return parsed.success ? { header: parsed.data, pcm } : null;
  } catch {
    return null;
  }
}
