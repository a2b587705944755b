import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/infra/config.js';
import { createRecordingStorage } from '../../../shared/recordings/create-storage.js';
import {
  RangeNotSatisfiableError,
  RecordingChunkMissingError,
  RecordingNotFoundError,
  type RecordingStorage,
} from '../../../shared/recordings/storage.js';
import { type OwnS3Server, startOwnS3Server } from '../../support/s3-server.js';

/** One storage under test, and a look at what it keeps beside a recording's object. */
interface Backend {
  readonly name: 'local' | 's3';
  setUp(): Promise<RecordingStorage>;
  tearDown(): Promise<void>;
  /** Every stored file or object of the recording other than its assembled object (chunks, temporaries). */
  leftovers(key: string): Promise<string[]>;
  /** How many parts the assembled object was uploaded in (S3 only: read off the server's request log). */
  uploadedParts?(key: string): number;
}

function localBackend(): Backend {
  let dir = '';
  let storage: RecordingStorage | undefined;
  return {
    name: 'local',
    async setUp() {
      dir = mkdtempSync(join(tmpdir(), 'meetbot-recordings-'));
      // A folder below the temp dir that does not exist yet: the storage makes it on demand.
      storage = createRecordingStorage(parseConfig({ RECORDING_DIR: join(dir, 'recordings') }));
      return storage;
    },
    async tearDown() {
      await storage?.close();
      rmSync(dir, { recursive: true, force: true });
    },
    async leftovers(key) {
      const root = join(dir, 'recordings');
      if (!existsSync(root)) return [];
      return readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name)))
        .filter((path) => path.startsWith(`${key}.`) && path !== `${key}.ogg`);
    },
  };
}

function s3Backend(prefix: string): Backend & { server(): OwnS3Server } {
  let server: OwnS3Server | undefined;
  let storage: RecordingStorage | undefined;
  let inspector: S3Client | undefined;
  return {
    name: 's3',
    server: () => server!,
    async setUp() {
      server = await startOwnS3Server();
      storage = createRecordingStorage(
        parseConfig({
          RECORDING_STORAGE: 's3',
          S3_BUCKET: server.bucket,
          S3_ENDPOINT: server.endpoint,
          S3_REGION: server.region,
          S3_ACCESS_KEY_ID: server.accessKeyId,
          S3_SECRET_ACCESS_KEY: server.secretAccessKey,
          S3_FORCE_PATH_STYLE: 'true',
          S3_KEY_PREFIX: prefix,
        }),
        // Short, so the stopped-server test fails fast; the defaults are for real stores.
        { connectionTimeoutMs: 2_000, socketTimeoutMs: 10_000 },
      );
      inspector = new S3Client({
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      });
      return storage;
    },
    async tearDown() {
      await storage?.close();
      inspector?.destroy();
      await server?.destroy();
    },
    async leftovers(key) {
      const listed = await inspector!.send(
        new ListObjectsV2Command({ Bucket: server!.bucket, Prefix: `${prefix}${key}.` }),
      );
      return (listed.Contents ?? [])
        .map((object) => object.Key!.slice(prefix.length))
        .filter((name) => name !== `${key}.ogg`);
    },
    uploadedParts(key) {
      const marker = `${prefix}${key}.ogg?partNumber=`;
      const parts = server!
        .output()
        .split('\n')
        .filter((line) => line.includes(marker) && / 200 /.test(line))
        .map((line) => line.slice(line.indexOf(marker) + marker.length).split('&')[0]);
      return new Set(parts).size;
    },
  };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of stream) pieces.push(Buffer.from(piece as Uint8Array));
  return Buffer.concat(pieces);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
let keyCounter = 0;
const newKey = () => `meeting-${++keyCounter}/rec-${randomBytes(4).toString('hex')}`;

/** `count` chunks of random bytes, sized like a bot's (a few KB to ~100 KB). */
function makeChunks(count: number, minBytes = 2_000, maxBytes = 100_000): Buffer[] {
  return Array.from({ length: count }, () =>
    randomBytes(minBytes + Math.floor(Math.random() * (maxBytes - minBytes + 1))),
  );
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

async function putAll(storage: RecordingStorage, key: string, chunks: Buffer[], parallel = 8): Promise<void> {
  const order = shuffled(chunks.map((_, seq) => seq));
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let seq = order.pop(); seq !== undefined; seq = order.pop()) {
        await storage.putChunk(key, seq, chunks[seq]!);
      }
    }),
  );
}

const seqsOf = (chunks: unknown[]) => chunks.map((_, seq) => seq);

describe.each([localBackend(), s3Backend(`test-${randomBytes(3).toString('hex')}/`)])(
  '$name recording storage',
  (backend) => {
    let storage: RecordingStorage;

    beforeAll(async () => {
      storage = await backend.setUp();
    });
    afterAll(async () => {
      await backend.tearDown();
    });

    it('is the kind the configuration names', () => {
      expect(storage.kind).toBe(backend.name);
    });

    it('joins chunks put out of order and repeated into one object, byte-exact in seq order, and removes the chunks', async () => {
      const key = newKey();
      const chunks = makeChunks(6);
      expect(await storage.stat(key)).toBeNull();
      await storage.putChunk(key, 3, randomBytes(500)); // replaced below: the same chunk again wins
      for (const seq of [4, 1, 5, 3, 0, 2]) await storage.putChunk(key, seq, chunks[seq]!);
      await storage.putChunk(key, 1, chunks[1]!); // a redelivery
      expect(await storage.stat(key)).toBeNull(); // chunks are not the object

      const expected = Buffer.concat(chunks);
      const { sizeBytes } = await storage.assemble(key, seqsOf(chunks));
      expect(sizeBytes).toBe(expected.length);
      expect(await storage.stat(key)).toEqual({ sizeBytes: expected.length });
      expect((await readAll(await storage.read(key))).equals(expected)).toBe(true);
      expect(await backend.leftovers(key)).toEqual([]);

      // A retry after success: same size, object untouched.
      expect(await storage.assemble(key, seqsOf(chunks))).toEqual({ sizeBytes: expected.length });
      expect((await readAll(await storage.read(key))).equals(expected)).toBe(true);
    });

    it('joins the chunks in the order it is given', async () => {
      const key = newKey();
      const chunks = makeChunks(3);
      await putAll(storage, key, chunks);
      const { sizeBytes } = await storage.assemble(key, [2, 0, 1]);
      const expected = Buffer.concat([chunks[2]!, chunks[0]!, chunks[1]!]);
      expect(sizeBytes).toBe(expected.length);
      expect((await readAll(await storage.read(key))).equals(expected)).toBe(true);
    });

    it('serves byte ranges: first byte, middle, last byte, an end past the last byte; a start past the end is refused', async () => {
      const key = newKey();
      const chunks = makeChunks(4);
      await putAll(storage, key, chunks);
      const whole = Buffer.concat(chunks);
      const size = whole.length;
      await storage.assemble(key, seqsOf(chunks));

      const range = async (start: number, end: number) => readAll(await storage.read(key, { start, end }));
      expect((await range(0, 0)).equals(whole.subarray(0, 1))).toBe(true);
      expect((await range(1000, 54_321)).equals(whole.subarray(1000, 54_322))).toBe(true);
      expect((await range(size - 1, size - 1)).equals(whole.subarray(size - 1))).toBe(true);
      expect((await range(size - 10, size + 500)).equals(whole.subarray(size - 10))).toBe(true);

      const pastEnd = await storage.read(key, { start: size, end: size + 10 }).catch((error) => error);
      expect(pastEnd).toBeInstanceOf(RangeNotSatisfiableError);
      expect(pastEnd).toMatchObject({ sizeBytes: size, recordingKey: key });
      await expect(storage.read(key, { start: 10, end: 5 })).rejects.toThrow(/Invalid byte range/);
      await expect(storage.read(key, { start: -1, end: 5 })).rejects.toThrow(/Invalid byte range/);
    });

    it('reads back a recording of many chunks larger than a multipart part (12+ MiB) byte-exact', async () => {
      const key = newKey();
      // ~200 chunks of 20–110 KB: 13 MiB or so, past two 5 MiB parts.
      let chunks = makeChunks(200, 20_000, 110_000);
      while (Buffer.concat(chunks).length < 12 * 1024 * 1024) chunks = [...chunks, ...makeChunks(10)];
      const whole = Buffer.concat(chunks);
      await putAll(storage, key, chunks);
      const { sizeBytes } = await storage.assemble(key, seqsOf(chunks));
      expect(sizeBytes).toBe(whole.length);
      expect(await storage.stat(key)).toEqual({ sizeBytes: whole.length });
      const back = await readAll(await storage.read(key));
      expect(back.length).toBe(whole.length);
      expect(sha256(back)).toBe(sha256(whole));
      // Streamed up in 5 MiB parts, not sent whole.
      if (backend.uploadedParts)
        expect(backend.uploadedParts(key)).toBe(Math.ceil(whole.length / (5 * 1024 * 1024)));
      // A range across the first part boundary (5 MiB).
      const boundary = 5 * 1024 * 1024;
      const across = await readAll(await storage.read(key, { start: boundary - 777, end: boundary + 999 }));
      expect(across.equals(whole.subarray(boundary - 777, boundary + 1000))).toBe(true);
      expect(await backend.leftovers(key)).toEqual([]);
      await storage.remove(key);
    }, 180_000);

    it('fails to assemble when a chunk is missing, leaving no object and the chunks it has', async () => {
      const key = newKey();
      const chunks = makeChunks(4);
      for (const seq of [0, 1, 3]) await storage.putChunk(key, seq, chunks[seq]!);
      const failure = await storage.assemble(key, [0, 1, 2, 3]).catch((error) => error);
      expect(failure).toBeInstanceOf(RecordingChunkMissingError);
      expect(failure).toMatchObject({ seq: 2 });
      expect(await storage.stat(key)).toBeNull();
      expect((await backend.leftovers(key)).length).toBe(3);
      // The missing chunk arrives late: assembling again works.
      await storage.putChunk(key, 2, chunks[2]!);
      expect(await storage.assemble(key, [0, 1, 2, 3])).toEqual({ sizeBytes: Buffer.concat(chunks).length });

      const never = newKey();
      await expect(storage.assemble(never, [0])).rejects.toBeInstanceOf(RecordingChunkMissingError);
      expect(await storage.stat(never)).toBeNull();
    });

    it('two assemblers of the same recording at once both succeed with the same object', async () => {
      const key = newKey();
      const chunks = makeChunks(30);
      await putAll(storage, key, chunks);
      const whole = Buffer.concat(chunks);
      const results = await Promise.all([
        storage.assemble(key, seqsOf(chunks)),
        storage.assemble(key, seqsOf(chunks)),
      ]);
      expect(results).toEqual([{ sizeBytes: whole.length }, { sizeBytes: whole.length }]);
      expect((await readAll(await storage.read(key))).equals(whole)).toBe(true);
      expect(await backend.leftovers(key)).toEqual([]);
    });

    it('ignores a chunk redelivered after the recording was assembled', async () => {
      const key = newKey();
      const chunks = makeChunks(3);
      await putAll(storage, key, chunks);
      await storage.assemble(key, seqsOf(chunks));
      await storage.putChunk(key, 1, randomBytes(1234));
      expect((await readAll(await storage.read(key))).equals(Buffer.concat(chunks))).toBe(true);
      expect(await backend.leftovers(key)).toEqual([]);
    });

    it('removes the object and every chunk, and removing again (or what never was) is no error', async () => {
      const assembled = newKey();
      const chunks = makeChunks(3);
      await putAll(storage, assembled, chunks);
      await storage.assemble(assembled, seqsOf(chunks));
      const unassembled = newKey();
      await putAll(storage, unassembled, chunks);

      await storage.remove(assembled);
      await storage.remove(unassembled);
      expect(await storage.stat(assembled)).toBeNull();
      await expect(storage.read(assembled)).rejects.toBeInstanceOf(RecordingNotFoundError);
      expect(await backend.leftovers(assembled)).toEqual([]);
      expect(await backend.leftovers(unassembled)).toEqual([]);

      await storage.remove(assembled);
      await storage.remove(newKey());
      await expect(storage.read(newKey())).rejects.toBeInstanceOf(RecordingNotFoundError);
    });

    it('refuses invalid keys and chunk numbers before touching anything', async () => {
      const bad = [
        '',
        '/meeting-1/rec-1',
        'meeting-1/../rec-1',
        '..',
        'a//b',
        'a/',
        'a.b',
        'a b',
        'x'.repeat(201),
      ];
      for (const key of bad) {
        await expect(storage.putChunk(key, 0, randomBytes(10))).rejects.toThrow(/Invalid recording key/);
        await expect(storage.assemble(key, [0])).rejects.toThrow(/Invalid recording key/);
        await expect(storage.stat(key)).rejects.toThrow(/Invalid recording key/);
        await expect(storage.read(key)).rejects.toThrow(/Invalid recording key/);
        await expect(storage.remove(key)).rejects.toThrow(/Invalid recording key/);
      }
      const key = newKey();
      for (const seq of [-1, 1.5, Number.NaN, 1e10]) {
        await expect(storage.putChunk(key, seq, randomBytes(10))).rejects.toThrow(/Invalid chunk number/);
      }
      await expect(storage.assemble(key, [])).rejects.toThrow(/no chunk numbers/);
      await expect(storage.assemble(key, [0, 1, 0])).rejects.toThrow(/listed twice/);
      expect(await backend.leftovers(key)).toEqual([]);
    });
  },
);

describe('local recording storage folders', () => {
  it('is made on demand and loses the empty folders a removed recording leaves, never its own root', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'meetbot-recordings-'));
    const root = join(dir, 'data', 'recordings');
    const storage = createRecordingStorage(parseConfig({ RECORDING_STORAGE: 'local', RECORDING_DIR: root }));
    try {
      await storage.putChunk('meeting-7/rec-1', 0, randomBytes(100));
      await storage.putChunk('meeting-7/rec-2', 0, randomBytes(100));
      await storage.assemble('meeting-7/rec-1', [0]);
      expect(readdirSync(join(root, 'meeting-7')).sort()).toEqual(['rec-1.ogg', 'rec-2.parts']);

      await storage.remove('meeting-7/rec-1');
      expect(readdirSync(join(root, 'meeting-7'))).toEqual(['rec-2.parts']);
      await storage.remove('meeting-7/rec-2');
      expect(existsSync(join(root, 'meeting-7'))).toBe(false);
      expect(existsSync(root)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('s3 recording storage when the store goes away', () => {
  const backend = s3Backend('fault/');
  let storage: RecordingStorage;
  beforeAll(async () => {
    storage = await backend.setUp();
  });
  afterAll(async () => {
    await backend.tearDown();
  });

  it('rejects a chunk while the server is down, and the same call succeeds once it is back', async () => {
    const key = newKey();
    const chunks = makeChunks(2);
    await storage.putChunk(key, 0, chunks[0]!);

    await backend.server().stop('SIGKILL');
    // Bounded by the SDK's attempts and timeouts (set short in s3Backend), well inside the test's timeout.
    await expect(storage.putChunk(key, 1, chunks[1]!)).rejects.toThrow();

    await backend.server().start();
    await storage.putChunk(key, 1, chunks[1]!); // the caller's retry
    expect(await storage.assemble(key, [0, 1])).toEqual({ sizeBytes: Buffer.concat(chunks).length });
    expect((await readAll(await storage.read(key))).equals(Buffer.concat(chunks))).toBe(true);
  }, 60_000);
});
