import { describe, expect, it } from 'vitest';
import {
  float32ToInt16,
  float32ToLittleEndianBytes,
  int16ToFloat32,
  littleEndianBytesToFloat32,
} from '../../../bot/audio-utils/pcm.js';
import { decodeWav, encodeWav } from '../../../bot/audio-utils/wav.js';

function ramp(length: number): Int16Array {
  const samples = new Int16Array(length);
  for (let i = 0; i < length; i++) samples[i] = ((i * 7919) % 65536) - 32768;
  return samples;
}

describe('WAV', () => {
  it('round-trips 16 kHz mono PCM', () => {
    const samples = ramp(16_001);
    const wav = encodeWav(samples, 16_000);
    expect(wav.byteLength).toBe(44 + samples.length * 2);
    expect(new TextDecoder().decode(wav.subarray(0, 4))).toBe('RIFF');
    const decoded = decodeWav(wav);
    expect(decoded.sampleRate).toBe(16_000);
    expect(decoded.channels).toBe(1);
    expect(decoded.samples).toEqual(samples);
  });

  it('skips unknown chunks and averages stereo to mono', () => {
    const mono = encodeWav(new Int16Array([0, 0]), 8000);
    const view = new DataView(mono.buffer);
    // Rewrite as stereo with one extra LIST chunk before the data.
    const extra = new Uint8Array([0x4c, 0x49, 0x53, 0x54, 2, 0, 0, 0, 9, 9]);
    const data = new Uint8Array(8 + 8);
    const dataView = new DataView(data.buffer);
    data.set([0x64, 0x61, 0x74, 0x61]);
    dataView.setUint32(4, 8, true);
    dataView.setInt16(8, 100, true);
    dataView.setInt16(10, 300, true);
    dataView.setInt16(12, -100, true);
    dataView.setInt16(14, -301, true);
    view.setUint16(22, 2, true);
    const file = new Uint8Array(36 + extra.length + data.length);
    file.set(mono.subarray(0, 36));
    file.set(extra, 36);
    file.set(data, 36 + extra.length);
    const decoded = decodeWav(file);
    expect(decoded.channels).toBe(2);
    expect(Array.from(decoded.samples)).toEqual([200, -200]);
  });

  it('rejects what it cannot read', () => {
    expect(() => decodeWav(new TextEncoder().encode('ID3 not a wav at all'))).toThrow(/RIFF/);
    const wav = encodeWav(new Int16Array(4), 16_000);
    new DataView(wav.buffer).setUint16(34, 8, true);
    expect(() => decodeWav(wav)).toThrow(/8 bits/);
  });
});

describe('PCM conversions', () => {
  it('maps int16 to [-1, 1) floats and back without loss', () => {
    const samples = new Int16Array([-32768, -16384, -1, 0, 1, 16384, 32767]);
    const floats = int16ToFloat32(samples);
    expect(floats[0]).toBe(-1);
    expect(floats[3]).toBe(0);
    expect(floats[5]).toBe(0.5);
    expect(Array.from(float32ToInt16(floats))).toEqual([-32768, -16384, -1, 0, 1, 16384, 32767]);
  });

  it('writes float32 little-endian whatever the host order', () => {
    const bytes = float32ToLittleEndianBytes(new Float32Array([1, -0.5]));
    expect(Array.from(bytes)).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xbf]);
    expect(Array.from(littleEndianBytesToFloat32(bytes))).toEqual([1, -0.5]);
  });

  it('clamps floats outside [-1, 1]', () => {
    expect(Array.from(float32ToInt16(new Float32Array([2, -2])))).toEqual([32767, -32768]);
  });
});
