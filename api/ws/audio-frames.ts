import { AUDIO_SAMPLE_RATE, type AudioChunkHeader } from '../../shared/contract/audio-stream.js';

/**
 * What the audio WebSocket (`/meetings/{id}/audio`) sends (docs/api.md, "Meeting audio over
 * WebSocket"): JSON text frames for control (`ready`, `pong`, `error`), and one binary frame per
 * chunk of audio: a 4-byte big-endian length, that many bytes of UTF-8 JSON header, then the PCM
 * (16 kHz, signed 16-bit little-endian, mono).
 */

export const AUDIO_FORMAT = { format: 's16le', sample_rate: AUDIO_SAMPLE_RATE, channels: 1 } as const;

/** The streams a socket carries: the meeting's mix (neither platform gives a track per person). */
export const AUDIO_STREAMS = ['mixed'] as const;

export interface AudioFrameHeader {
  type: 'audio';
  stream: (typeof AUDIO_STREAMS)[number];
  /** The bot's chunk number: a gap is audio lost on the way (the bot's Redis too slow, or this reader). */
  seq: number;
  /** Seconds on the transcript's time line, as segments' `start` and `end`. */
  start: number;
  end: number;
  samples: number;
  sample_rate: number;
  /** The bot's speaker attribution over the chunk (the active speaker); null when nobody was seen speaking. */
  speaker: string | null;
  /** Wall clock (ms since the epoch) when the bot had captured the whole chunk. */
  captured_at_ms: number;
  /** Wall clock (ms since the epoch) of the chunk's first sample, from the meeting page's audio clock. */
  start_wall_ms: number;
  /** Wall clock (ms since the epoch) when the API sent the frame. */
  sent_at_ms: number;
}

/** The first frame of an open socket: what the binary frames will carry. */
export function readyFrame(meetingId: number) {
  return { type: 'ready', meeting_id: meetingId, ...AUDIO_FORMAT, streams: AUDIO_STREAMS };
}

export function audioFrameHeader(
  chunk: AudioChunkHeader,
  pcmBytes: number,
  sentAtMs: number,
): AudioFrameHeader {
  return {
    type: 'audio',
    stream: 'mixed',
    seq: chunk.seq,
    start: chunk.start,
    end: chunk.end,
    samples: pcmBytes / 2,
    sample_rate: AUDIO_SAMPLE_RATE,
    speaker: chunk.speaker,
    captured_at_ms: chunk.capturedAtMs,
    start_wall_ms: chunk.startWallMs,
    sent_at_ms: sentAtMs,
  };
}

/** One binary frame: length-prefixed JSON header, then the PCM bytes. */
export function encodeAudioFrame(header: AudioFrameHeader, pcm: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(json.length, 0);
  return Buffer.concat([prefix, json, pcm]);
}

/** A binary frame taken apart (what a client does); throws on a frame that is not one. */
export function decodeAudioFrame(frame: Buffer): { header: AudioFrameHeader; pcm: Buffer } {
  if (frame.length < 4) throw new Error('audio frame shorter than its length prefix');
  const length = frame.readUInt32BE(0);
  if (4 + length > frame.length) throw new Error('audio frame header runs past the frame');
  const header = JSON.parse(frame.subarray(4, 4 + length).toString('utf8')) as AudioFrameHeader;
  const pcm = frame.subarray(4 + length);
  if (pcm.length % 2 !== 0) throw new Error('audio frame PCM has an odd number of bytes');
  return { header, pcm };
}
