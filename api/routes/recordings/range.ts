import type { ByteRange } from '../../../shared/recordings/storage.js';

/** What a request's `Range` header asks of a representation of `size` bytes (RFC 9110 §14). */
export type RangeRequest =
  /** No Range, or one that is ignored: another unit, a malformed one, or several ranges at once. */
  | { kind: 'whole' }
  | { kind: 'partial'; range: ByteRange }
  /** A single byte range that starts past the end (or an empty suffix): 416. */
  | { kind: 'unsatisfiable' };

const BYTES_UNIT = /^\s*bytes\s*=(.*)$/is;
const FIRST_LAST = /^(\d+)-(\d*)$/;
const SUFFIX = /^-(\d+)$/;

/**
 * Reads `Range: bytes=a-b`, `bytes=a-` and `bytes=-n`. Several ranges are answered with the whole
 * file (200), as HTTP allows: players ask for one range at a time, and a multipart answer helps none.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined || header.trim() === '') return { kind: 'whole' };
  const unit = BYTES_UNIT.exec(header);
  if (!unit) return { kind: 'whole' };
  const specs = (unit[1] ?? '')
    .split(',')
    .map((spec) => spec.trim())
    .filter((spec) => spec !== '');
  if (specs.length !== 1) return { kind: 'whole' };
  const spec = specs[0]!;

  const suffix = SUFFIX.exec(spec);
  if (suffix) {
    const length = Number(suffix[1]);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const firstLast = FIRST_LAST.exec(spec);
  if (!firstLast) return { kind: 'whole' };
  const start = Number(firstLast[1]);
  const last = firstLast[2] === '' ? undefined : Number(firstLast[2]);
  if (last !== undefined && last < start) return { kind: 'whole' }; // invalid: the header is ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: Math.min(last ?? size - 1, size - 1) } };
}
