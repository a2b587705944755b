import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  assertAssembleSeqs,
  assertByteRange,
  assertChunkSeq,
  assertRecordingKey,
  type ByteRange,
  paddedSeq,
  RangeNotSatisfiableError,
  RecordingChunkMissingError,
  RecordingNotFoundError,
  type RecordingStorage,
} from './storage.js';

export interface S3RecordingStorageOptions {
  bucket: string;
  /** A store other than AWS (MinIO, Ceph, R2, ...); unset: AWS's own endpoint for the region. */
  endpoint?: string | undefined;
  region: string;
  /** Both or neither; neither: the SDK's credential chain (environment, profile, instance role). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  forcePathStyle: boolean;
  /** Prepended to every object key as is (give it its trailing `/`). */
  keyPrefix: string;
  /** Attempts per request, the first included (the SDK retries throttling, 5xx and network errors). */
  maxAttempts?: number;
  /** Time to open a connection before the attempt fails. */
  connectionTimeoutMs?: number;
  /** A connection silent this long fails its request (a hung store must not hang the caller). */
  socketTimeoutMs?: number;
  /** Size of each part of the assembled object's multipart upload (S3's minimum is 5 MiB). */
  partSizeBytes?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
const DELETE_BATCH = 1000;

const statusOf = (error: unknown): number | undefined =>
  error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;

/**
 * Recordings in an S3-compatible bucket: `<prefix><key>.ogg` once assembled, its chunks as
 * `<prefix><key>.parts/<seq>` before. Keys never contain dots, so no key's objects fall under
 * another key's `.parts/` prefix.
 *
 * Checksums: SDK versions since early 2025 add CRC checksums to every upload by default
 * (`WHEN_SUPPORTED`), which many self-hosted stores (older MinIO, Ceph RGW, s3rver, ...) reject or
 * mishandle; we ask for them only where the S3 API requires one (DeleteObjects), as before.
 */
export class S3RecordingStorage implements RecordingStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  constructor(options: S3RecordingStorageOptions) {
    if ((options.accessKeyId === undefined) !== (options.secretAccessKey === undefined))
      throw new Error('S3 credentials: give both the access key id and the secret access key, or neither');
    this.bucket = options.bucket;
    this.prefix = options.keyPrefix;
    this.partSize = Math.max(MIN_PART_SIZE, options.partSizeBytes ?? MIN_PART_SIZE);
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: options.maxAttempts ?? 3,
      requestHandler: {
        connectionTimeout: options.connectionTimeoutMs ?? 5_000,
        socketTimeout: options.socketTimeoutMs ?? 60_000,
      },
    });
  }

  async putChunk(recordingKey: string, seq: number, bytes: Uint8Array): Promise<void> {
    assertRecordingKey(recordingKey);
    assertChunkSeq(seq);
    if ((await this.finalSize(recordingKey)) !== null) return;
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.partKey(recordingKey, seq),
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async assemble(recordingKey: string, seqs: readonly number[]): Promise<{ sizeBytes: number }> {
    assertRecordingKey(recordingKey);
    assertAssembleSeqs(seqs);
    const existing = await this.finalSize(recordingKey);
    if (existing !== null) {
      await this.removeParts(recordingKey);
      return { sizeBytes: existing };
    }
    let missing: number | undefined;
    let sizeBytes = 0;
    const chunks = async function* (this: S3RecordingStorage) {
      for (const seq of seqs) {
        let body: Readable;
        try {
          const answer = await this.client.send(
            new GetObjectCommand({ Bucket: this.bucket, Key: this.partKey(recordingKey, seq) }),
          );
          body = answer.Body as Readable;
        } catch (error) {
          if (statusOf(error) === 404) missing = seq;
          throw error;
        }
        for await (const piece of body) {
          sizeBytes += (piece as Uint8Array).byteLength;
          yield piece as Uint8Array;
        }
      }
    }.call(this);
    // The chunks stream through the upload: at most two parts are held in memory at once.
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: this.finalKey(recordingKey),
        Body: Readable.from(chunks, { objectMode: false }),
        ContentType: 'audio/ogg',
      },
      partSize: this.partSize,
      queueSize: 1,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      if (missing === undefined) throw error;
      // Another assembler may have finished meanwhile and removed the chunks.
      const done = await this.finalSize(recordingKey);
      if (done !== null) return { sizeBytes: done };
      throw new RecordingChunkMissingError(recordingKey, missing);
    }
    await this.removeParts(recordingKey);
    return { sizeBytes };
  }

  async stat(recordingKey: string): Promise<{ sizeBytes: number } | null> {
    assertRecordingKey(recordingKey);
    const sizeBytes = await this.finalSize(recordingKey);
    return sizeBytes === null ? null : { sizeBytes };
  }

  async read(recordingKey: string, range?: ByteRange): Promise<Readable> {
    assertRecordingKey(recordingKey);
    if (range) assertByteRange(range);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.finalKey(recordingKey),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = answer.Body as Readable;
      return range ? exactRange(recordingKey, range, body, answer.ContentRange, answer.ContentLength) : body;
    } catch (error) {
      const status = statusOf(error);
      if (status === 404) throw new RecordingNotFoundError(recordingKey);
      if (status === 416 && range) {
        const size = await this.finalSize(recordingKey);
        if (size === null) throw new RecordingNotFoundError(recordingKey);
        throw new RangeNotSatisfiableError(recordingKey, range, size);
      }
      throw error;
    }
  }

  async remove(recordingKey: string): Promise<void> {
    assertRecordingKey(recordingKey);
    // Deleting an object that isn't there succeeds in S3.
    await this.client.send(
      new DeleteObjectCommand({ Bucket: this.bucket, Key: this.finalKey(recordingKey) }),
    );
    await this.removeParts(recordingKey);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private finalKey(recordingKey: string): string {
    return `${this.prefix}${recordingKey}.ogg`;
  }

  private partsPrefix(recordingKey: string): string {
    return `${this.prefix}${recordingKey}.parts/`;
  }

  private partKey(recordingKey: string, seq: number): string {
    return `${this.partsPrefix(recordingKey)}${paddedSeq(seq)}`;
  }

  private async finalSize(recordingKey: string): Promise<number | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.finalKey(recordingKey) }),
      );
      return head.ContentLength ?? 0;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  /** Deletes every stored chunk of the recording, those `assemble` was not told about included. */
  private async removeParts(recordingKey: string): Promise<void> {
    const prefix = this.partsPrefix(recordingKey);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          MaxKeys: DELETE_BATCH,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (keys.length > 0) {
        const answer = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
        );
        const failed = (answer.Errors ?? []).filter((failure) => failure.Code !== 'NoSuchKey');
        if (failed.length > 0)
          throw new Error(
            `Could not delete ${failed.length} chunk(s) of recording ${recordingKey}: ${failed[0]?.Code} ${failed[0]?.Message ?? ''}`.trim(),
          );
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

/**
 * The bytes of `range`, whatever a lenient store sent. Some S3-compatible stores answer a range
 * with more than was asked (s3rver serves `bytes=0-0` as the whole object), and any HTTP server may
 * ignore Range and send it all with a 200; a caller that promised its client `Content-Length` must
 * get exactly the range. Real S3 answers exactly, and this passes its body through untouched.
 */
export function exactRange(
  recordingKey: string,
  range: ByteRange,
  body: Readable,
  contentRange: string | undefined,
  contentLength: number | undefined,
): Readable {
  const served = contentRange ? /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange) : null;
  if (contentRange && !served)
    throw new Error(`Unexpected Content-Range ${contentRange} for ${recordingKey}`);
  const servedStart = served ? Number(served[1]) : 0;
  const servedEnd = served ? Number(served[2]) : (contentLength ?? 0) - 1;
  const size = served && served[3] !== '*' ? Number(served[3]) : servedEnd + 1;
  const wantedEnd = Math.min(range.end, size - 1);
  if (servedStart > range.start || servedEnd < wantedEnd) {
    body.destroy();
    throw new Error(
      `The store sent bytes ${servedStart}-${servedEnd} of ${recordingKey} for a request of ${range.start}-${range.end}`,
    );
  }
  if (servedStart === range.start && servedEnd === wantedEnd) return body;
  return Readable.from(slice(body, range.start - servedStart, wantedEnd - range.start + 1));
}

/** `count` bytes of `source` after its first `skip`; the rest of `source` is dropped. */
async function* slice(source: Readable, skip: number, count: number): AsyncGenerator<Uint8Array> {
  let toSkip = skip;
  let left = count;
  for await (const chunk of source) {
    let piece = chunk as Uint8Array;
    if (toSkip > 0) {
      const skipped = Math.min(toSkip, piece.byteLength);
      piece = piece.subarray(skipped);
      toSkip -= skipped;
    }
    if (piece.byteLength === 0) continue;
    if (piece.byteLength >= left) {
      yield piece.subarray(0, left);
      return;
    }
    yield piece;
    left -= piece.byteLength;
  }
}
