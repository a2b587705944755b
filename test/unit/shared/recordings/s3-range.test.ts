import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRecordingStorage } from '../../../../shared/recordings/create-storage.js';
import { exactRange } from '../../../../shared/recordings/s3-storage.js';

const object = randomBytes(10_000);
/** The object's bytes from `start` to `end`, in pieces of `piece` bytes, as a response body streams. */
const body = (start: number, end: number, piece = 777) => {
  const bytes = object.subarray(start, end + 1);
  return Readable.from(
    Array.from({ length: Math.ceil(bytes.length / piece) }, (_, i) =>
      bytes.subarray(i * piece, (i + 1) * piece),
    ),
  );
};
async function readAll(stream: Readable): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of stream) pieces.push(Buffer.from(piece as Uint8Array));
  return Buffer.concat(pieces);
}

describe('exactRange (what a ranged GetObject returns)', () => {
  it('passes an exact answer through untouched', () => {
    const answer = body(100, 199);
    expect(exactRange('k', { start: 100, end: 199 }, answer, 'bytes 100-199/10000', 100)).toBe(answer);
    const clamped = body(9990, 9999);
    expect(exactRange('k', { start: 9990, end: 20_000 }, clamped, 'bytes 9990-9999/10000', 10)).toBe(clamped);
  });

  it('trims an answer that holds more than the range (bytes=0-0 served whole)', async () => {
    const answer = exactRange('k', { start: 0, end: 0 }, body(0, 9999), 'bytes 0-9999/10000', 10_000);
    expect(await readAll(answer)).toEqual(object.subarray(0, 1));
  });

  it('cuts the range out of a whole object sent without Content-Range (Range ignored)', async () => {
    const answer = exactRange('k', { start: 1500, end: 2600 }, body(0, 9999), undefined, 10_000);
    expect(await readAll(answer)).toEqual(object.subarray(1500, 2601));
    const tail = exactRange('k', { start: 9999, end: 12_000 }, body(0, 9999), undefined, 10_000);
    expect(await readAll(tail)).toEqual(object.subarray(9999));
  });

  it('refuses an answer that starts late or ends short', () => {
    expect(() => exactRange('k', { start: 10, end: 20 }, body(11, 20), 'bytes 11-20/10000', 10)).toThrow(
      /sent bytes 11-20 of k for a request of 10-20/,
    );
    expect(() => exactRange('k', { start: 10, end: 20 }, body(10, 15), 'bytes 10-15/10000', 6)).toThrow(
      /sent bytes 10-15/,
    );
    expect(() => exactRange('k', { start: 10, end: 20 }, body(10, 20), 'pages 1-2', 11)).toThrow(
      /Unexpected Content-Range/,
    );
  });
});

describe('createRecordingStorage', () => {
  const base = {
    RECORDING_DIR: 'data/recordings',
    S3_REGION: 'us-east-1',
    S3_FORCE_PATH_STYLE: true,
    S3_KEY_PREFIX: 'recordings/',
  };

  it('builds the storage RECORDING_STORAGE names', async () => {
    const local = createRecordingStorage({ ...base, RECORDING_STORAGE: 'local' });
    const s3 = createRecordingStorage({
      ...base,
      RECORDING_STORAGE: 's3',
      S3_BUCKET: 'recordings',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
    });
    expect([local.kind, s3.kind]).toEqual(['local', 's3']);
    await Promise.all([local.close(), s3.close()]);
  });

  it('wants a bucket for s3', () => {
    expect(() => createRecordingStorage({ ...base, RECORDING_STORAGE: 's3' })).toThrow(
      /S3_BUCKET is required/,
    );
  });
});
