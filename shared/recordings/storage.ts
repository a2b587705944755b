import type { Readable } from 'node:stream';

/** An inclusive byte range, as HTTP Range gives it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where recordings live. A recording arrives as numbered chunks while its meeting runs (each chunk a
 * slice of one continuous Ogg Opus byte stream, so the chunks in order ARE the file); once it is
 * complete the chunks are joined into one object that is served with byte ranges.
 *
 * Every method is idempotent: the ingester delivers at least once, and a retried call after a
 * crash must neither fail nor change what a first successful call produced.
 *
 * Recording keys are ours (`meeting-12/rec-34`) but still checked (`assertRecordingKey`): a bad one
 * is refused with an Error before anything is stored or read.
 */
export interface RecordingStorage {
  readonly kind: 'local' | 's3';
  /**
   * Stores chunk `seq` (0, 1, 2...) of a recording; the same chunk again replaces it. Once the
   * recording is assembled, a chunk arriving late (a redelivery) is ignored.
   */
  putChunk(recordingKey: string, seq: number, bytes: Uint8Array): Promise<void>;
  /**
   * Joins the given chunks, in the order given, into the recording's one object and then removes
   * the recording's chunks. When the object already exists (a retry after the chunks were removed),
   * returns its size without touching it, removing any chunks a crashed earlier call left behind.
   * A chunk that is missing fails it with `RecordingChunkMissingError` and no object is made.
   */
  assemble(recordingKey: string, seqs: readonly number[]): Promise<{ sizeBytes: number }>;
  /** The assembled object's size, or null when there is none. */
  stat(recordingKey: string): Promise<{ sizeBytes: number } | null>;
  /**
   * The assembled object, whole or one byte range of it. Throws `RecordingNotFoundError` when there
   * is none and `RangeNotSatisfiableError` when the range starts past its last byte; an end past
   * the last byte reads up to the last byte (as HTTP does).
   */
  read(recordingKey: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object and every chunk of the recording; nothing to remove is not an error. */
  remove(recordingKey: string): Promise<void>;
  /** Releases clients and handles. */
  close(): Promise<void>;
}

export const RECORDING_KEY_MAX_LENGTH = 200;
/** Chunk numbers are written zero-padded to this many digits, so stored chunks list in order. */
export const CHUNK_SEQ_DIGITS = 10;
const MAX_SEQ = 10 ** CHUNK_SEQ_DIGITS - 1;
const KEY_SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Throws unless `key` is segments of letters, digits, `_` and `-` joined by single `/`, at most
 * 200 characters. Dots are never allowed, so a key can't climb out of its folder and the storages
 * can add `.ogg` / `.parts` suffixes that no other key can collide with.
 */
export function assertRecordingKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) throw new Error('Invalid recording key: empty');
  if (key.length > RECORDING_KEY_MAX_LENGTH)
    throw new Error(`Invalid recording key: longer than ${RECORDING_KEY_MAX_LENGTH} characters`);
  if (!key.split('/').every((segment) => KEY_SEGMENT.test(segment)))
    throw new Error(
      `Invalid recording key ${JSON.stringify(key)}: want segments of A-Z a-z 0-9 _ - separated by single '/', no leading or trailing '/'`,
    );
}

/** Throws unless `seq` is a whole number from 0 to 9,999,999,999. */
export function assertChunkSeq(seq: unknown): asserts seq is number {
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || seq > MAX_SEQ)
    throw new Error(`Invalid chunk number ${String(seq)}: want a whole number from 0 to ${MAX_SEQ}`);
}

export function paddedSeq(seq: number): string {
  return String(seq).padStart(CHUNK_SEQ_DIGITS, '0');
}

/** Throws unless `range` is whole numbers with 0 <= start <= end. */
export function assertByteRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start)
    throw new Error(`Invalid byte range ${start}-${end}: want whole numbers with 0 <= start <= end`);
}

/** The seqs `assemble` was given, checked: at least one, each valid, none twice. */
export function assertAssembleSeqs(seqs: readonly number[]): void {
  if (seqs.length === 0) throw new Error('Nothing to assemble: no chunk numbers given');
  const seen = new Set<number>();
  for (const seq of seqs) {
    assertChunkSeq(seq);
    if (seen.has(seq)) throw new Error(`Chunk ${seq} is listed twice`);
    seen.add(seq);
  }
}

export class RecordingNotFoundError extends Error {
  constructor(readonly recordingKey: string) {
    super(`Recording ${recordingKey} has no stored audio`);
    this.name = 'RecordingNotFoundError';
  }
}

/** The range starts at or past the object's size (HTTP 416; `sizeBytes` is for `Content-Range: bytes *\/size`). */
export class RangeNotSatisfiableError extends Error {
  constructor(
    readonly recordingKey: string,
    readonly range: ByteRange,
    readonly sizeBytes: number,
  ) {
    super(
      `Range ${range.start}-${range.end} starts past the end of recording ${recordingKey} (${sizeBytes} bytes)`,
    );
    this.name = 'RangeNotSatisfiableError';
  }
}

export class RecordingChunkMissingError extends Error {
  constructor(
    readonly recordingKey: string,
    readonly seq: number,
  ) {
    super(`Cannot assemble recording ${recordingKey}: chunk ${seq} is not stored`);
    this.name = 'RecordingChunkMissingError';
  }
}
