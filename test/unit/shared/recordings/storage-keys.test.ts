import { describe, expect, it } from 'vitest';
import {
  assertAssembleSeqs,
  assertByteRange,
  assertChunkSeq,
  assertRecordingKey,
  paddedSeq,
} from '../../../../shared/recordings/storage.js';

describe('assertRecordingKey', () => {
  it.each([
    'meeting-12/rec-34',
    'rec',
    'a/b/c/d',
    'Meeting_1/REC-2',
    'x'.repeat(200),
    `${'a'.repeat(99)}/${'b'.repeat(100)}`,
  ])('accepts %s', (key) => {
    expect(() => assertRecordingKey(key)).not.toThrow();
  });

  it.each([
    ['', /empty/],
    ['x'.repeat(201), /longer than 200/],
    ['/meeting-12/rec-34', /Invalid recording key/],
    ['meeting-12/rec-34/', /Invalid recording key/],
    ['meeting-12//rec-34', /Invalid recording key/],
    ['..', /Invalid recording key/],
    ['meeting-12/../rec-34', /Invalid recording key/],
    ['meeting-12/./rec-34', /Invalid recording key/],
    ['rec.ogg', /Invalid recording key/],
    ['meeting 12', /Invalid recording key/],
    ['meeting\\12', /Invalid recording key/],
    ['meeting-12/rec-34\n', /Invalid recording key/],
    ['réc', /Invalid recording key/],
    ['%2e%2e', /Invalid recording key/],
  ])('refuses %j', (key, message) => {
    expect(() => assertRecordingKey(key)).toThrow(message);
  });

  it('refuses what is not a string', () => {
    expect(() => assertRecordingKey(undefined)).toThrow(/Invalid recording key/);
    expect(() => assertRecordingKey(12)).toThrow(/Invalid recording key/);
  });
});

describe('chunk numbers', () => {
  it('accepts whole numbers from 0 to 10 digits and pads them so they sort', () => {
    for (const seq of [0, 1, 42, 9_999_999_999]) expect(() => assertChunkSeq(seq)).not.toThrow();
    expect(paddedSeq(7)).toBe('0000000007');
    expect(paddedSeq(9_999_999_999)).toBe('9999999999');
    expect([paddedSeq(10), paddedSeq(9)].sort()).toEqual([paddedSeq(9), paddedSeq(10)]);
  });

  it.each([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, 10_000_000_000, '1'])('refuses %s', (seq) => {
    expect(() => assertChunkSeq(seq)).toThrow(/Invalid chunk number/);
  });

  it('wants at least one chunk to assemble, each once', () => {
    expect(() => assertAssembleSeqs([2, 0, 1])).not.toThrow();
    expect(() => assertAssembleSeqs([])).toThrow(/no chunk numbers/);
    expect(() => assertAssembleSeqs([0, 1, 1])).toThrow(/Chunk 1 is listed twice/);
    expect(() => assertAssembleSeqs([0, -1])).toThrow(/Invalid chunk number -1/);
  });
});

describe('assertByteRange', () => {
  it('accepts 0 <= start <= end and refuses the rest', () => {
    expect(() => assertByteRange({ start: 0, end: 0 })).not.toThrow();
    expect(() => assertByteRange({ start: 5, end: 1_000_000 })).not.toThrow();
    expect(() => assertByteRange({ start: 6, end: 5 })).toThrow(/Invalid byte range/);
    expect(() => assertByteRange({ start: -1, end: 5 })).toThrow(/Invalid byte range/);
    expect(() => assertByteRange({ start: 0.5, end: 5 })).toThrow(/Invalid byte range/);
  });
});
