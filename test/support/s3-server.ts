import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { childServer } from './child-server.js';
import { freePort } from './stack.js';

/**
 * An S3-compatible server of a test's own: s3rver (an npm devDependency, so `npm install` brings it
 * on any machine) as a child process on a free 127.0.0.1 port, keeping its objects in a temporary
 * directory of its own, so it can be stopped and started again with its data.
 *
 * Why s3rver: it speaks path-style requests with SigV4, multipart uploads, ranged GETs, HeadObject,
 * ListObjectsV2 and DeleteObjects as the AWS SDK v3 sends them (checked with the SDK version in the
 * lock file). Debian bookworm no longer packages moto (`python3-moto`), and MinIO has no Debian or
 * npm package. Its known slips, which the storage copes with as it would with any lenient store:
 * it answers `Range: bytes=0-0` with the whole object (the storage trims what it gets to the range
 * asked), and a DeleteObjects of several keys in one folder can answer 500 once, when its parallel
 * deletes race to remove the emptied folder (the SDK's retry finishes the job).
 */
export interface OwnS3Server {
  endpoint: string;
  port: number;
  bucket: string;
  /** s3rver's fixed credentials. */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Stops it: SIGTERM, or SIGKILL for a crash. Its objects stay for the next start. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
  /** Its log: a line per request (`<verb> /<bucket>/<key>?<query> <status>`, the start cut off). */
  output(): string;
}

function s3rverBin(): string {
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js');
  } catch {
    throw new Error(
      's3rver is not installed: it is a devDependency of this project, run `npm install` (npm test does it).',
    );
  }
}

/** Any HTTP answer to HEAD /<bucket>, and whether it was 200 (the bucket exists). */
function probe(port: number, bucket: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'HEAD', path: `/${bucket}`, timeout: 2000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? null);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

export async function startOwnS3Server(bucket = 'meetbot-test'): Promise<OwnS3Server> {
  const bin = s3rverBin();
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-s3-'));
  const port = await freePort();
  const server = childServer({
    name: 's3rver',
    command: process.execPath,
    args: [
      bin,
      '--directory',
      dir,
      '--address',
      '127.0.0.1',
      '--port',
      String(port),
      '--no-vhost-buckets',
      '--configure-bucket',
      bucket,
    ],
    // Its log has a line per request (tests look for the multipart upload's parts).
    keepOutput: 4_000_000,
    ready: async () => (await probe(port, bucket)) === 200,
    notReady: `on ${port} never served bucket ${bucket}`,
  });
  const { start, stop } = server;

  try {
    await start();
  } catch (error) {
    await stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    region: 'us-east-1',
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    output: server.output,
  };
}
