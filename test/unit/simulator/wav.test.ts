import { describe, expect, it } from 'vitest';
import { parseWav } from '../../../simulator/wav.js';

function wav(sampleRate: number, samples: number, extraChunk = false): Buffer {
  const data = Buffer.alloc(samples * 2);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(1, 10);
  fmt.writeUInt32LE(sampleRate, 12);
  fmt.writeUInt32LE(sampleRate * 2, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(16, 22);
  const list = Buffer.from('LIST\x03\x00\x00\x00abc\x00', 'binary');
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0, 'ascii');
  dataHeader.writeUInt32LE(data.length, 4);
  const body = Buffer.concat([Buffer.from('WAVE'), fmt, ...(extraChunk ? [list] : []), dataHeader, data]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

describe('parseWav', () => {
  it('reads the duration of 16-bit mono PCM', () => {
    expect(parseWav(wav(16000, 8000)).durationSeconds).toBeCloseTo(0.5);
    expect(parseWav(wav(8000, 8000)).sampleRate).toBe(8000);
  });

  it('skips unknown chunks, including odd-sized ones', () => {
    expect(parseWav(wav(16000, 16000, true)).durationSeconds).toBeCloseTo(1);
  });

  it('rejects what is not a WAVE file', () => {
    expect(() => parseWav(Buffer.from('hello world, not a wav'))).toThrow(/RIFF/);
  });
});
