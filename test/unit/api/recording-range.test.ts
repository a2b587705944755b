import { describe, expect, it } from 'vitest';
import { parseRange } from '../../../api/routes/recordings/range.js';

describe('parseRange', () => {
  it.each([
    ['bytes=0-0', 0, 0],
    ['bytes=10-19', 10, 19],
    ['bytes=90-', 90, 99],
    ['bytes=90-1000', 90, 99],
    ['bytes=-10', 90, 99],
    ['bytes=-1000', 0, 99],
    ['BYTES = 5-6', 5, 6],
    ['bytes=5-6,', 5, 6],
    ['bytes=99999999999999999999-', undefined, undefined],
  ])('%s on 100 bytes', (header, start, end) => {
    const parsed = parseRange(header, 100);
    if (start === undefined) expect(parsed).toEqual({ kind: 'unsatisfiable' });
    else expect(parsed).toEqual({ kind: 'partial', range: { start, end } });
  });

  it.each(['bytes=100-', 'bytes=100-200', 'bytes=-0'])('%s on 100 bytes is unsatisfiable', (header) => {
    expect(parseRange(header, 100)).toEqual({ kind: 'unsatisfiable' });
  });

  it('finds nothing in an empty file to serve a range of', () => {
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange(undefined, 0)).toEqual({ kind: 'whole' });
  });

  it.each([
    undefined,
    '',
    'bytes=0-1,5-6',
    'items=0-1',
    'bytes=5-2',
    'bytes=a-b',
    'bytes=-',
    'bytes=1.5-2',
    '0-1',
  ])('serves the whole file for %s', (header) => {
    expect(parseRange(header, 100)).toEqual({ kind: 'whole' });
  });
});
