import { describe, expect, it } from 'vitest';
import { AUDIO_CLOSE, AUDIO_SEND_LIMIT_BYTES, slowConsumerVerdict } from '../../../api/ws/audio-consumer.js';
import { audioFrameHeader, decodeAudioFrame, encodeAudioFrame } from '../../../api/ws/audio-frames.js';
import { audioSocketMeetingId } from '../../../api/ws/handshake.js';
import {
  AUDIO_HEADER_FIELD,
  AUDIO_PCM_FIELD,
  type AudioChunkHeader,
  audioStreamFields,
  parseAudioStreamEntry,
} from '../../../shared/contract/audio-stream.js';

const CHUNK: AudioChunkHeader = {
  seq: 41,
  start: 12.4,
  end: 12.6,
  startWallMs: 1_790_000_000_000,
  capturedAtMs: 1_790_000_000_230,
  speaker: 'Zoë Ångström',
};

function pcmOf(samples: number[]): Buffer {
  const pcm = Buffer.alloc(samples.length * 2);
  samples.forEach((sample, index) => {
    pcm.writeInt16LE(sample, index * 2);
  });
  return pcm;
}

describe('audio socket frames', () => {
  it('carry a length-prefixed JSON header then the PCM bytes untouched', () => {
    const pcm = pcmOf([0, 1, -1, 32767, -32768, 1234]);
    const header = audioFrameHeader(CHUNK, pcm.length, 1_790_000_000_260);
    const frame = encodeAudioFrame(header, pcm);

    const length = frame.readUInt32BE(0);
    expect(JSON.parse(frame.subarray(4, 4 + length).toString('utf8'))).toEqual({
      type: 'audio',
      stream: 'mixed',
      seq: 41,
      start: 12.4,
      end: 12.6,
      samples: 6,
      sample_rate: 16000,
      speaker: 'Zoë Ångström',
      captured_at_ms: 1_790_000_000_230,
      start_wall_ms: 1_790_000_000_000,
      sent_at_ms: 1_790_000_000_260,
    });
    expect(frame.subarray(4 + length).equals(pcm)).toBe(true);

    const decoded = decodeAudioFrame(frame);
    expect(decoded.header).toEqual(header);
    expect(decoded.pcm.readInt16LE(6)).toBe(32767);
    expect(decoded.pcm.readInt16LE(8)).toBe(-32768);
  });

  it('refuse to decode a truncated or odd frame', () => {
    const frame = encodeAudioFrame(audioFrameHeader(CHUNK, 4, 0), pcmOf([1, 2]));
    expect(() => decodeAudioFrame(frame.subarray(0, 3))).toThrow(/length prefix/);
    expect(() => decodeAudioFrame(frame.subarray(0, 20))).toThrow(/runs past/);
    expect(() => decodeAudioFrame(frame.subarray(0, frame.length - 1))).toThrow(/odd/);
  });

  it("round-trip through the bot's stream entry; entries that are not audio chunks are skipped", () => {
    const pcm = pcmOf([5, -5, 300]);
    const fields = audioStreamFields(CHUNK, pcm).map((value) => Buffer.from(value));
    expect(parseAudioStreamEntry(fields)).toEqual({ header: CHUNK, pcm });

    const header = Buffer.from(AUDIO_HEADER_FIELD);
    const pcmField = Buffer.from(AUDIO_PCM_FIELD);
    expect(parseAudioStreamEntry([header, Buffer.from(JSON.stringify(CHUNK))])).toBeNull();
    expect(parseAudioStreamEntry([header, Buffer.from('{not json'), pcmField, pcm])).toBeNull();
    expect(
      parseAudioStreamEntry([header, Buffer.from(JSON.stringify({ ...CHUNK, seq: -1 })), pcmField, pcm]),
    ).toBeNull();
    expect(
      parseAudioStreamEntry([header, Buffer.from(JSON.stringify(CHUNK)), pcmField, Buffer.alloc(3)]),
    ).toBeNull();
  });
});

describe('the slow-consumer policy', () => {
  const frame = 6_500;

  it('sends while what waits unsent stays within the limit, then drops the consumer with a reason', () => {
    expect(slowConsumerVerdict(0, frame)).toEqual({ send: true });
    expect(slowConsumerVerdict(AUDIO_SEND_LIMIT_BYTES - frame, frame)).toEqual({ send: true });
    const verdict = slowConsumerVerdict(AUDIO_SEND_LIMIT_BYTES - frame + 1, frame);
    expect(verdict.send).toBe(false);
    expect(verdict).toMatchObject({
      reason: expect.stringMatching(/^Slow consumer: 186 KiB of audio unsent \(limit 192 KiB\)/),
    });
    // A close reason has at most 123 bytes.
    expect(Buffer.byteLength((verdict as { reason: string }).reason)).toBeLessThanOrEqual(123);
  });

  it('takes a smaller limit, e.g. a deployment that wants slow clients gone sooner', () => {
    expect(slowConsumerVerdict(0, frame, 10_000)).toEqual({ send: true });
    expect(slowConsumerVerdict(4_000, frame, 10_000).send).toBe(false);
  });

  it('has a close code of its own, distinct from the standard and the other audio codes', () => {
    const codes = Object.values(AUDIO_CLOSE);
    expect(new Set(codes).size).toBe(codes.length);
    expect(AUDIO_CLOSE.slowConsumer).toBeGreaterThanOrEqual(4000);
  });
});

describe('the audio socket path', () => {
  it('is /meetings/{id}/audio with a positive decimal id, nothing else', () => {
    expect(audioSocketMeetingId('/meetings/17/audio')).toBe(17);
    for (const path of [
      '/meetings/0/audio',
      '/meetings/-1/audio',
      '/meetings/1e3/audio',
      '/meetings/17/audio/',
      '/meetings//audio',
      '/meetings/17',
      '/ws',
      '/meetings/1234567890123456/audio',
    ])
      expect(audioSocketMeetingId(path)).toBeUndefined();
  });
});
