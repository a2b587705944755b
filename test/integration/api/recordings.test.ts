import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/infra/logger.js';
import { createRecordingStorage } from '../../../shared/recordings/create-storage.js';
import { signMediaToken } from '../../../shared/recordings/media-links.js';
import {
  findOrCreateRecording,
  findRecording,
  markRecordingFailed,
  markRecordingReady,
  RECORDING_CONTENT_TYPE,
  type RecordingRecord,
  recordChunk,
} from '../../../shared/recordings/store.js';
import { upsertSegments } from '../../../shared/transcripts/store.js';
import { RecordingSweeper } from '../../../worker/sweeps/recording-sweeper.js';
import {
  ADMIN_KEY,
  ISO_UTC,
  MEETING_FIELDS,
  startTestApi,
  type TestApi,
  type TestUser,
  teamsBot,
} from '../../support/api.js';
import { advanceMeeting, transitionMeeting } from '../../support/meetings.js';
import { segmentRow } from '../../support/segments.js';

let api: TestApi;
let user: TestUser;
let other: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 100 });
  other = await api.createUser({ maxConcurrentBots: 100 });
});
afterAll(() => api.close());

let nativeCounter = 0;
/** A meeting of `owner` through the API; `finished` walks it to completed, as a bot that left would. */
async function meeting(
  owner: TestUser,
  options: { finished?: boolean; extra?: Record<string, unknown> } = {},
): Promise<{ id: number; nativeId: string }> {
  nativeCounter += 1;
  const nativeId = String(7_000_000_000 + nativeCounter);
  const created = await api.request('POST', '/bots', {
    key: owner.key,
    json: teamsBot(nativeId, options.extra),
  });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  if (options.finished ?? true) {
    await advanceMeeting(api.database.db, id, 'active');
    await transitionMeeting(api.database.db, id, { to: 'completed', source: 'test' });
  }
  return { id, nativeId };
}

/** Recognizable bytes standing in for Ogg Opus audio (the API serves bytes; it never decodes them). */
function audioBytes(size: number, seed = 0): Buffer {
  return Buffer.from(Array.from({ length: size }, (_, index) => (index * 7 + seed) % 251));
}

let sessionCounter = 0;
/**
 * A recording as the ingester leaves it: chunks stored and counted, then (unless `state` says
 * otherwise) joined into one object and marked ready.
 */
async function recording(
  meetingId: number,
  owner: TestUser,
  options: { bytes?: Buffer; state?: 'recording' | 'ready' | 'failed'; startSeconds?: number } = {},
): Promise<RecordingRecord> {
  sessionCounter += 1;
  const db = api.database.db;
  const bytes = options.bytes ?? audioBytes(3000, sessionCounter);
  const created = await findOrCreateRecording(db, {
    meetingId,
    userId: owner.id,
    sessionId: `session-${sessionCounter}`,
    startSeconds: options.startSeconds ?? 0,
  });
  const half = Math.floor(bytes.length / 2);
  const chunks = [bytes.subarray(0, half), bytes.subarray(half)];
  for (const [seq, chunk] of chunks.entries()) {
    await api.recordingStorage.putChunk(created.storageKey, seq, chunk);
    await recordChunk(db, created.id, {
      seq,
      sizeBytes: chunk.length,
      endSeconds: (seq + 1) * 2.5,
      final: seq === chunks.length - 1,
    });
  }
  const state = options.state ?? 'ready';
  if (state === 'failed') await markRecordingFailed(db, created.id, 'chunk 3 never arrived');
  if (state === 'ready') {
    const { sizeBytes } = await api.recordingStorage.assemble(created.storageKey, [0, 1]);
    await markRecordingReady(db, created.id, sizeBytes);
  }
  return (await findRecording(db, created.id))!;
}

async function media(path: string, headers: Record<string, string> = {}, method = 'GET', via = api) {
  const response = await fetch(`${via.baseUrl}${path}`, { method, headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes };
}

const mediaPath = (id: number) => `/recordings/${id}/media`;

/** A media_url as the API signs them: the recording's path and a token `<expires>.<signature>`. */
const signedMediaUrl = (base: string, id: number) =>
  new RegExp(`^${base.replace(/[.]/g, '\\.')}/recordings/${id}/media\\?token=[0-9]+\\.[A-Za-z0-9_-]{43}$`);

/** The token with another last character (never the same one: a token may end in any of them). */
const lastCharacterChanged = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

/** The `?token=` of the media_url GET /recordings/{id} hands the owner now. */
async function mediaTokenOf(recordingId: number, owner: TestUser = user, via = api): Promise<string> {
  const detail = await via.request('GET', `/recordings/${recordingId}`, { key: owner.key });
  expect(detail.status).toBe(200);
  return new URL(detail.body.media_url).searchParams.get('token')!;
}

describe('GET /meetings/{id} and GET /recordings/{id}', () => {
  it('lists the meeting’s recordings beside the spec’s fields, oldest first, without deleted ones', async () => {
    const { id } = await meeting(user);
    const first = await recording(id, user, { bytes: audioBytes(4000) });
    const second = await recording(id, user, { state: 'recording', startSeconds: 61.5 });
    const third = await recording(id, user);
    expect((await api.request('DELETE', `/recordings/${third.id}`, { key: user.key })).status).toBe(200);

    const response = await api.request('GET', `/meetings/${id}`, { key: user.key });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(
      [...MEETING_FIELDS, 'recordings', 'participants'].sort(),
    );
    expect(response.body.status).toBe('completed');
    expect(response.body.recordings.map((r: { id: number }) => r.id)).toEqual([first.id, second.id]);
    const [ready, live] = response.body.recordings;
    expect(Object.keys(ready).sort()).toEqual(
      [
        'id',
        'format',
        'state',
        'start',
        'duration',
        'size',
        'created_at',
        'completed_at',
        'media_url',
      ].sort(),
    );
    expect(ready).toMatchObject({ format: 'ogg_opus', state: 'ready', start: 0, duration: 5, size: 4000 });
    expect(ready.created_at).toMatch(ISO_UTC);
    expect(ready.completed_at).toMatch(ISO_UTC);
    expect(ready.media_url).toMatch(signedMediaUrl(api.baseUrl, first.id));
    expect(live).toMatchObject({ state: 'recording', start: 61.5, size: 0, completed_at: null });

    // Another user sees neither the meeting nor its recordings.
    expect((await api.request('GET', `/meetings/${id}`, { key: other.key })).status).toBe(404);
  });

  it('shows an empty list for a meeting without recordings, and keeps GET /meetings unchanged', async () => {
    const { id } = await meeting(user);
    const response = await api.request('GET', `/meetings/${id}`, { key: user.key });
    expect(response.body.recordings).toEqual([]);
    const list = await api.request('GET', '/meetings', { key: user.key });
    for (const listed of list.body.meetings)
      expect(Object.keys(listed).sort()).toEqual([...MEETING_FIELDS].sort());
  });

  it('GET /recordings/{id} answers the recording with its meeting; 404 for others, unknown or deleted', async () => {
    const { id, nativeId } = await meeting(user);
    const failed = await recording(id, user, { state: 'failed' });
    const response = await api.request('GET', `/recordings/${failed.id}`, { key: user.key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: failed.id,
      meeting_id: id,
      platform: 'teams',
      native_meeting_id: nativeId,
      state: 'failed',
      format: 'ogg_opus',
      content_type: RECORDING_CONTENT_TYPE,
      error: 'chunk 3 never arrived',
      media_url: expect.stringMatching(signedMediaUrl(api.baseUrl, failed.id)),
    });

    expect(await api.request('GET', `/recordings/${failed.id}`, { key: other.key })).toMatchObject({
      status: 404,
      body: { error: 'Recording not found' },
    });
    expect((await api.request('GET', '/recordings/2147483000', { key: user.key })).status).toBe(404);
    expect((await api.request('GET', '/recordings/99999999999999', { key: user.key })).status).toBe(404);
    expect(await api.request('GET', '/recordings/abc', { key: user.key })).toMatchObject({
      status: 400,
      body: { error: 'id: must be a positive integer' },
    });
    expect((await api.request('GET', `/recordings/${failed.id}`)).status).toBe(401);
    expect((await api.request('DELETE', `/recordings/${failed.id}`, { key: user.key })).status).toBe(200);
    expect((await api.request('GET', `/recordings/${failed.id}`, { key: user.key })).status).toBe(404);
  });

  it('points media URLs at PUBLIC_BASE_URL when it is set', async () => {
    const publicApi = await startTestApi({
      replicaOf: api,
      env: { PUBLIC_BASE_URL: 'https://meetbot.example.test/api/' },
    });
    try {
      const { id } = await meeting(user);
      const made = await recording(id, user);
      const response = await publicApi.request('GET', `/recordings/${made.id}`, { key: user.key });
      expect(response.body.media_url).toMatch(signedMediaUrl('https://meetbot.example.test/api', made.id));
    } finally {
      await publicApi.close();
    }
  });
});

describe('GET /recordings/{id}/media', () => {
  let ready: RecordingRecord;
  const bytes = audioBytes(10_000, 3);

  beforeAll(async () => {
    const { id } = await meeting(user);
    ready = await recording(id, user, { bytes });
  });

  it('streams the whole file with its type, length and Accept-Ranges', async () => {
    const response = await media(mediaPath(ready.id), { 'X-API-Key': user.key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(RECORDING_CONTENT_TYPE);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-length')).toBe('10000');
    expect(response.headers.get('content-range')).toBeNull();
    expect(response.bytes.equals(bytes)).toBe(true);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=5000-', 5000, 9999],
    ['bytes=-300', 9700, 9999],
    ['bytes=9990-20000', 9990, 9999],
    ['bytes=-20000', 0, 9999],
    ['bytes=9999-9999', 9999, 9999],
  ])('answers %s with 206 and that slice', async (range, start, end) => {
    const response = await media(mediaPath(ready.id), { 'X-API-Key': user.key, Range: range });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/10000`);
    expect(response.headers.get('content-length')).toBe(String(end - start + 1));
    expect(response.headers.get('content-type')).toBe(RECORDING_CONTENT_TYPE);
    expect(response.bytes.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it.each(['bytes=10000-', 'bytes=20000-20010', 'bytes=-0'])(
    'answers %s with 416, the size and a JSON error',
    async (range) => {
      const response = await media(mediaPath(ready.id), { 'X-API-Key': user.key, Range: range });
      expect(response.status).toBe(416);
      expect(response.headers.get('content-range')).toBe('bytes */10000');
      expect(JSON.parse(response.bytes.toString())).toEqual({
        error: 'Range not satisfiable: the recording has 10000 bytes',
      });
    },
  );

  it.each([
    ['several ranges', 'bytes=0-9, 20-29'],
    ['another unit', 'items=0-9'],
    ['a backwards range', 'bytes=50-10'],
    ['a malformed range', 'bytes=abc'],
  ])('serves the whole file (200) for %s', async (_name, range) => {
    const response = await media(mediaPath(ready.id), { 'X-API-Key': user.key, Range: range });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-range')).toBeNull();
    expect(response.bytes.equals(bytes)).toBe(true);
  });

  it('honours If-Range only for the current ETag', async () => {
    const whole = await media(mediaPath(ready.id), { 'X-API-Key': user.key });
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const same = await media(mediaPath(ready.id), {
      'X-API-Key': user.key,
      Range: 'bytes=0-9',
      'If-Range': etag,
    });
    expect(same.status).toBe(206);
    const changed = await media(mediaPath(ready.id), {
      'X-API-Key': user.key,
      Range: 'bytes=0-9',
      'If-Range': '"something-else"',
    });
    expect(changed.status).toBe(200);
    expect(changed.bytes.length).toBe(10_000);
  });

  it('answers HEAD with the same headers and no body', async () => {
    const whole = await media(mediaPath(ready.id), { 'X-API-Key': user.key }, 'HEAD');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe('10000');
    expect(whole.headers.get('content-type')).toBe(RECORDING_CONTENT_TYPE);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.bytes.length).toBe(0);
    const part = await media(mediaPath(ready.id), { 'X-API-Key': user.key, Range: 'bytes=100-199' }, 'HEAD');
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/10000');
    expect(part.headers.get('content-length')).toBe('100');
  });

  it('plays the media_url without an API key, as a browser <audio> element fetches it', async () => {
    const detail = await api.request('GET', `/recordings/${ready.id}`, { key: user.key });
    const response = await fetch(detail.body.media_url, { headers: { Range: 'bytes=10-19' } });
    expect(response.status).toBe(206);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
  });

  it('refuses a wrong token, another recording’s token, no credentials and another user’s key', async () => {
    const { id } = await meeting(user);
    const sibling = await recording(id, user);
    const readyToken = await mediaTokenOf(ready.id);
    const siblingToken = await mediaTokenOf(sibling.id);
    const wrong = await media(`${mediaPath(ready.id)}?token=${lastCharacterChanged(readyToken)}`);
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.bytes.toString())).toEqual({ error: 'Unauthorized' });
    expect((await media(`${mediaPath(ready.id)}?token=${siblingToken}`)).status).toBe(401);
    expect((await media(`${mediaPath(ready.id)}?token=`)).status).toBe(401);
    expect((await media(`${mediaPath(ready.id)}?token=${'a'.repeat(5000)}`)).status).toBe(401);
    expect((await media(mediaPath(ready.id))).status).toBe(401);
    // A token opens its own recording's media and nothing else.
    expect((await media(`/recordings/${ready.id}?token=${readyToken}`)).status).toBe(401);
    const foreign = await media(mediaPath(ready.id), { 'X-API-Key': other.key });
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString())).toEqual({ error: 'Recording not found' });
    // A bad key is a bad key, whatever token comes with it.
    expect((await media(`${mediaPath(ready.id)}?token=${readyToken}`, { 'X-API-Key': 'nope' })).status).toBe(
      401,
    );
  });

  it('counts failed tokens against the client address like failed keys', async () => {
    const limited = await startTestApi({
      replicaOf: api,
      rateLimited: true,
      env: { AUTH_FAILURES_PER_IP_PER_MINUTE: '3' },
    });
    try {
      const token = await mediaTokenOf(ready.id);
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        statuses.push(
          (await fetch(`${limited.baseUrl}${mediaPath(ready.id)}?token=guess-${attempt}`)).status,
        );
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      // Even the right token waits until the address's window ends.
      const blocked = await fetch(`${limited.baseUrl}${mediaPath(ready.id)}?token=${token}`);
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });

  it('answers 409 while the recording is still being recorded, 404 for a failed one without media', async () => {
    const { id } = await meeting(user, { finished: false });
    const live = await recording(id, user, { state: 'recording' });
    const recordingNow = await media(mediaPath(live.id), { 'X-API-Key': user.key });
    expect(recordingNow.status).toBe(409);
    expect(JSON.parse(recordingNow.bytes.toString()).error).toMatch(/still being recorded/);
    expect((await media(`${mediaPath(live.id)}?token=${await mediaTokenOf(live.id)}`)).status).toBe(409);

    const finished = await meeting(user);
    const failed = await recording(finished.id, user, { state: 'failed' });
    const response = await media(mediaPath(failed.id), { 'X-API-Key': user.key });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.bytes.toString())).toEqual({
      error: 'Recording failed and has no media; GET /recordings/{id} says why',
    });
  });
});

describe('media links: signed, time-limited, rotatable, and only while the owner may use the API', () => {
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const tokenExpiry = (token: string) => Number(token.split('.')[0]);
  const withToken = (id: number, token: string) => `${mediaPath(id)}?token=${encodeURIComponent(token)}`;

  async function ownerWithRecording(): Promise<{ owner: TestUser; made: RecordingRecord }> {
    const owner = await api.createUser({ maxConcurrentBots: 10 });
    const { id } = await meeting(owner);
    return { owner, made: await recording(id, owner) };
  }

  async function mediaLinkSecret(userId: number): Promise<string> {
    const row = await api.database.db('users').where({ id: userId }).first('media_link_secret');
    return row.media_link_secret;
  }

  it('expires RECORDING_MEDIA_LINK_TTL_SECONDS after the answer that carried it', async () => {
    const shortLived = await startTestApi({
      replicaOf: api,
      env: { RECORDING_MEDIA_LINK_TTL_SECONDS: '120' },
    });
    try {
      const { owner, made } = await ownerWithRecording();
      const before = nowSeconds();
      const token = await mediaTokenOf(made.id, owner, shortLived);
      expect(tokenExpiry(token)).toBeGreaterThanOrEqual(before + 120);
      expect(tokenExpiry(token)).toBeLessThanOrEqual(nowSeconds() + 120);
      expect((await media(withToken(made.id, token))).status).toBe(200);
      // The default lifetime is an hour, not forever.
      const hourLong = tokenExpiry(await mediaTokenOf(made.id, owner));
      expect(hourLong - nowSeconds()).toBeGreaterThan(3590);
      expect(hourLong - nowSeconds()).toBeLessThanOrEqual(3600);

      // A link signed as the API signs them, once expired, is refused; the same a minute ahead plays.
      const secret = await mediaLinkSecret(owner.id);
      const claims = { recordingId: made.id, userId: owner.id };
      const expired = signMediaToken(secret, { ...claims, expiresAt: nowSeconds() - 1 });
      const current = signMediaToken(secret, { ...claims, expiresAt: nowSeconds() + 60 });
      expect((await media(withToken(made.id, expired))).status).toBe(401);
      expect((await media(withToken(made.id, current))).status).toBe(200);
      // Its expiry can't be moved: the signature covers it.
      const stretched = `${nowSeconds() + 999_999}.${expired.split('.')[1]}`;
      expect((await media(withToken(made.id, stretched))).status).toBe(401);
      // Nor can a signature of another owner's secret open it.
      const foreign = signMediaToken(await mediaLinkSecret(other.id), {
        ...claims,
        expiresAt: nowSeconds() + 60,
      });
      expect((await media(withToken(made.id, foreign))).status).toBe(401);
    } finally {
      await shortLived.close();
    }
  });

  it('rejects a lifetime outside one minute to a week', async () => {
    for (const value of ['0', '59', '604801', 'forever']) {
      await expect(
        startTestApi({ replicaOf: api, env: { RECORDING_MEDIA_LINK_TTL_SECONDS: value } }),
      ).rejects.toThrow(/RECORDING_MEDIA_LINK_TTL_SECONDS/);
    }
  });

  it('plays on another API replica than the one that signed it', async () => {
    const replica = await startTestApi({ replicaOf: api });
    try {
      const { owner, made } = await ownerWithRecording();
      const token = await mediaTokenOf(made.id, owner);
      expect((await media(withToken(made.id, token), { Range: 'bytes=0-9' }, 'GET', replica)).status).toBe(
        206,
      );
    } finally {
      await replica.close();
    }
  });

  it('POST /recordings/media-links/rotate refuses every link handed out before, and only that user’s', async () => {
    const { owner, made } = await ownerWithRecording();
    const bystander = await ownerWithRecording();
    const old = await mediaTokenOf(made.id, owner);
    const untouched = await mediaTokenOf(bystander.made.id, bystander.owner);
    expect((await media(withToken(made.id, old))).status).toBe(200);

    expect((await api.request('POST', '/recordings/media-links/rotate')).status).toBe(401);
    const rotated = await api.request('POST', '/recordings/media-links/rotate', { key: owner.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.message).toMatch(/rotated/);

    expect((await media(withToken(made.id, old))).status).toBe(401);
    expect((await media(withToken(bystander.made.id, untouched))).status).toBe(200);
    const fresh = await mediaTokenOf(made.id, owner);
    expect((await media(withToken(made.id, fresh))).status).toBe(200);
  });

  it('is refused once its owner has no live API key, and a revoked key takes the links with it', async () => {
    const { owner, made } = await ownerWithRecording();
    const second = await api.request('POST', `/admin/users/${owner.id}/tokens`, {
      adminKey: ADMIN_KEY,
      json: { name: 'second' },
    });
    expect(second.status).toBe(201);
    const keys = (await api.request('GET', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY })).body
      .api_tokens as Array<{ id: number; name: string }>;
    const first = keys.find((key) => key.name === 'test')!;

    const beforeRevoke = await mediaTokenOf(made.id, owner);
    expect((await api.request('DELETE', `/admin/tokens/${first.id}`, { adminKey: ADMIN_KEY })).status).toBe(
      204,
    );
    expect((await media(withToken(made.id, beforeRevoke))).status).toBe(401);

    // The second key gets a new link; with every key revoked (here behind the API's back, so
    // nothing rotates) the owner is shut out and so are their links.
    const secondKey = { ...owner, key: second.body.token as string };
    const afterRevoke = await mediaTokenOf(made.id, secondKey);
    expect((await media(withToken(made.id, afterRevoke))).status).toBe(200);
    await api.database.db('api_keys').where({ user_id: owner.id }).update({ revoked_at: new Date() });
    expect((await media(withToken(made.id, afterRevoke))).status).toBe(401);
  });

  it('marks media answers private and never sent on as a Referer, refusals too', async () => {
    const { owner, made } = await ownerWithRecording();
    const token = await mediaTokenOf(made.id, owner);
    const answers = [
      await media(withToken(made.id, token)),
      await media(mediaPath(made.id), { 'X-API-Key': owner.key, Range: 'bytes=0-9' }),
      await media(mediaPath(made.id), { 'X-API-Key': owner.key }, 'HEAD'),
      await media(withToken(made.id, lastCharacterChanged(token))),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 206, 200, 401]);
    for (const answer of answers) {
      expect(answer.headers.get('cache-control')).toBe('private');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });
});

/** A port nothing listens on: connections to it are refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The real S3 storage pointed at `port`, where nothing answers, giving up at the first refusal. */
function unreachableS3(port: number) {
  return (config: Parameters<typeof createRecordingStorage>[0]) =>
    createRecordingStorage(
      {
        ...config,
        RECORDING_STORAGE: 's3',
        S3_BUCKET: 'recordings',
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_ACCESS_KEY_ID: 'test',
        S3_SECRET_ACCESS_KEY: 'test-secret',
        S3_FORCE_PATH_STYLE: true,
      },
      { maxAttempts: 1, connectionTimeoutMs: 2000, socketTimeoutMs: 2000 },
    );
}

describe('storage unreachable', () => {
  let down: TestApi;

  beforeAll(async () => {
    const port = await closedPort();
    // The same database, with the real S3 storage pointed at a closed port.
    down = await startTestApi({
      replicaOf: api,
      recordingStorage: unreachableS3(port),
    });
  });
  afterAll(() => down.close());

  it('answers media requests 503 with Retry-After, never 500', async () => {
    const { id } = await meeting(user);
    const made = await recording(id, user);
    for (const method of ['GET', 'HEAD']) {
      const response = await media(mediaPath(made.id), { 'X-API-Key': user.key }, method, down);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
    }
    const body = await media(mediaPath(made.id), { 'X-API-Key': user.key }, 'GET', down);
    expect(JSON.parse(body.bytes.toString())).toEqual({
      error: 'Recording storage unavailable; try again shortly',
    });
    // The same recording plays from the API whose storage is up.
    expect((await media(mediaPath(made.id), { 'X-API-Key': user.key })).status).toBe(200);
  });

  it('still deletes: the recording is gone for the user and left `deleting` for the worker’s sweep', async () => {
    const { id } = await meeting(user);
    const made = await recording(id, user);
    const response = await down.request('DELETE', `/recordings/${made.id}`, { key: user.key });
    expect(response).toMatchObject({ status: 200, body: { message: 'Recording deleted', id: made.id } });
    expect((await api.request('GET', `/recordings/${made.id}`, { key: user.key })).status).toBe(404);
    expect((await api.request('GET', `/meetings/${id}`, { key: user.key })).body.recordings).toEqual([]);
    const row = await findRecording(api.database.db, made.id);
    expect(row).toMatchObject({ state: 'deleting', meetingId: null });
  });
});

describe('DELETE /recordings/{id} and DELETE /meetings', () => {
  it('removes the recording’s files and row at once', async () => {
    const { id } = await meeting(user);
    const made = await recording(id, user);
    // A chunk still stored beside the assembled file (a redelivery after assembly, say) goes too.
    await api.recordingStorage.putChunk(made.storageKey, 7, audioBytes(10));
    expect(await api.recordingStorage.stat(made.storageKey)).toEqual({ sizeBytes: 3000 });
    const token = await mediaTokenOf(made.id);

    expect((await api.request('DELETE', `/recordings/${made.id}`, { key: other.key })).status).toBe(404);
    const response = await api.request('DELETE', `/recordings/${made.id}`, { key: user.key });
    expect(response).toMatchObject({ status: 200, body: { message: 'Recording deleted', id: made.id } });
    expect(await api.recordingStorage.stat(made.storageKey)).toBeNull();
    expect(await findRecording(api.database.db, made.id)).toBeNull();
    expect((await media(`${mediaPath(made.id)}?token=${token}`)).status).toBe(401);
    expect((await api.request('DELETE', `/recordings/${made.id}`, { key: user.key })).status).toBe(404);
  });

  it('refuses to delete a recording its bot is still making', async () => {
    const { id } = await meeting(user, { finished: false });
    const live = await recording(id, user, { state: 'recording' });
    const response = await api.request('DELETE', `/recordings/${live.id}`, { key: user.key });
    expect(response.status).toBe(409);
    expect(response.body.error).toMatch(/stop the bot/);
    expect((await findRecording(api.database.db, live.id))?.state).toBe('recording');
  });

  it('deleting the meetings removes their recordings’ files and rows, and no one else’s', async () => {
    const { id, nativeId } = await meeting(user);
    const first = await recording(id, user);
    const second = await recording(id, user, { state: 'failed' });
    const kept = await recording((await meeting(user)).id, user);

    const response = await api.request('DELETE', `/meetings/teams/${nativeId}`, { key: user.key });
    expect(response.status).toBe(200);
    expect(response.body.deleted_meeting_ids).toEqual([id]);
    for (const gone of [first, second]) {
      expect(await findRecording(api.database.db, gone.id)).toBeNull();
      expect(await api.recordingStorage.stat(gone.storageKey)).toBeNull();
    }
    // The failed one's chunks were never assembled: they are gone too.
    await expect(api.recordingStorage.assemble(second.storageKey, [0, 1])).rejects.toThrow(/not stored/);
    expect(await api.recordingStorage.stat(kept.storageKey)).toEqual({ sizeBytes: 3000 });
    expect((await media(mediaPath(kept.id), { 'X-API-Key': user.key })).status).toBe(200);
  });
});

describe('DELETE /admin/users/{id}', () => {
  const db = () => api.database.db;
  /** How many rows of `table` have `column` in `values`. */
  const count = async (table: string, column: string, values: number[]) =>
    Number((await db()(table).whereIn(column, values).count({ count: '*' }).first())?.count);

  /** A user with a bit of everything: a webhook, two finished meetings with a transcript, recordings. */
  async function userWithData() {
    const owner = await api.createUser({ maxConcurrentBots: 10 });
    // Written straight in: the address policy refuses loopback, and nothing is ever sent to it here.
    await db()('users')
      .where({ id: owner.id })
      .update({ webhook_url: 'http://127.0.0.1:9/hook', webhook_secret: 'hook-secret' });
    const first = await meeting(owner);
    const second = await meeting(owner);
    await upsertSegments(db(), [segmentRow(first.id, 's1', 0, 2, 'hello there', 'Ann')]);
    const ready = await recording(first.id, owner);
    const failed = await recording(second.id, owner, { state: 'failed' });
    const token = await mediaTokenOf(ready.id, owner);
    return { owner, meetings: [first.id, second.id], recordings: [ready, failed], token };
  }

  it('removes the user’s keys, meetings, transcripts, webhook settings and recording files, and nothing of others', async () => {
    const { owner, meetings, recordings, token } = await userWithData();
    const kept = await recording((await meeting(other)).id, other);

    expect((await api.request('DELETE', `/admin/users/${owner.id}`)).status).toBe(403);
    const response = await api.request('DELETE', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY });
    expect(response.status).toBe(204);

    expect((await api.request('GET', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY })).status).toBe(404);
    expect((await api.request('GET', '/meetings', { key: owner.key })).status).toBe(401);
    // The webhook settings were the user row's: gone with it, and so are its deliveries.
    expect(await count('users', 'id', [owner.id])).toBe(0);
    expect(await count('api_keys', 'user_id', [owner.id])).toBe(0);
    expect(await count('webhook_deliveries', 'user_id', [owner.id])).toBe(0);
    expect(await count('meetings', 'id', meetings)).toBe(0);
    expect(await count('transcript_segments', 'meeting_id', meetings)).toBe(0);
    for (const gone of recordings) {
      expect(await findRecording(db(), gone.id)).toBeNull();
      expect(await api.recordingStorage.stat(gone.storageKey)).toBeNull();
    }
    // The failed one's chunks were never joined into one file: they are gone too.
    await expect(api.recordingStorage.assemble(recordings[1]!.storageKey, [0, 1])).rejects.toThrow(
      /not stored/,
    );
    expect((await media(`${mediaPath(recordings[0]!.id)}?token=${token}`)).status).toBe(401);

    expect(await api.recordingStorage.stat(kept.storageKey)).toEqual({ sizeBytes: 3000 });
    expect((await media(mediaPath(kept.id), { 'X-API-Key': other.key })).status).toBe(200);
    expect((await api.request('DELETE', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY })).status).toBe(
      404,
    );
  });

  it('refuses (409, naming the meetings) while one of the user’s bots is in flight, and deletes nothing', async () => {
    const { owner, recordings } = await userWithData();
    const live = await meeting(owner, { finished: false });
    const response = await api.request('DELETE', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY });
    expect(response.status).toBe(409);
    expect(response.body.error).toContain(`meetings ${live.id}`);
    expect(await count('users', 'id', [owner.id])).toBe(1);
    expect(await api.recordingStorage.stat(recordings[0]!.storageKey)).toEqual({ sizeBytes: 3000 });
    expect((await api.request('GET', '/meetings', { key: owner.key })).status).toBe(200);

    await transitionMeeting(db(), live.id, { to: 'failed', source: 'test' });
    expect((await api.request('DELETE', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY })).status).toBe(
      204,
    );
    expect(await api.recordingStorage.stat(recordings[0]!.storageKey)).toBeNull();
  });

  it('keeps track of files the storage could not remove: the worker’s sweep removes them later', async () => {
    const port = await closedPort();
    const down = await startTestApi({
      replicaOf: api,
      recordingStorage: unreachableS3(port),
    });
    try {
      const { owner, recordings } = await userWithData();
      expect((await down.request('DELETE', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY })).status).toBe(
        204,
      );
      expect(await count('users', 'id', [owner.id])).toBe(0);
      for (const left of recordings) {
        expect(await findRecording(db(), left.id)).toMatchObject({
          state: 'deleting',
          userId: null,
          meetingId: null,
        });
      }
      expect(await api.recordingStorage.stat(recordings[0]!.storageKey)).toEqual({ sizeBytes: 3000 });

      const sweeper = new RecordingSweeper(
        { db: db(), storage: api.recordingStorage, log: createLogger('sweep-test', 'silent') },
        { staleSeconds: 3600, retentionDays: 0, intervalMs: 60_000 },
      );
      expect((await sweeper.sweep()).removed).toBeGreaterThanOrEqual(2);
      for (const gone of recordings) {
        expect(await findRecording(db(), gone.id)).toBeNull();
        expect(await api.recordingStorage.stat(gone.storageKey)).toBeNull();
      }
    } finally {
      await down.close();
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const document = (await api.request('GET', '/openapi.json')).body;
    expect(Object.keys(document.paths['/admin/users/{id}'].delete.responses)).toEqual(
      expect.arrayContaining(['204', '403', '404', '409']),
    );
    expect(document.paths['/recordings/media-links/rotate'].post).toBeDefined();
  });
});

describe('POST /bots recording_enabled', () => {
  async function storedFlag(meetingId: number): Promise<boolean> {
    const row = await api.database.db('meetings').where({ id: meetingId }).first('recording_enabled');
    return row.recording_enabled;
  }

  it('stores the flag, off by default, and keeps the meeting answer as the spec has it', async () => {
    const on = await api.request('POST', '/bots', {
      key: user.key,
      json: teamsBot('8100000001', { recording_enabled: true }),
    });
    expect(on.status).toBe(201);
    expect(Object.keys(on.body).sort()).toEqual([...MEETING_FIELDS].sort());
    expect(await storedFlag(on.body.id)).toBe(true);
    const plain = await api.request('POST', '/bots', { key: user.key, json: teamsBot('8100000002') });
    expect(await storedFlag(plain.body.id)).toBe(false);
  });

  it('rejects anything but a boolean, naming the field', async () => {
    for (const value of ['true', 1, null, {}]) {
      const response = await api.request('POST', '/bots', {
        key: user.key,
        json: teamsBot('8100000003', { recording_enabled: value }),
      });
      expect(response).toMatchObject({
        status: 400,
        body: { error: 'recording_enabled: must be a boolean' },
      });
    }
  });

  it('follows RECORDING_ENABLED_DEFAULT when the request does not say', async () => {
    const recordingByDefault = await startTestApi({
      replicaOf: api,
      env: { RECORDING_ENABLED_DEFAULT: 'true' },
    });
    try {
      const defaulted = await recordingByDefault.request('POST', '/bots', {
        key: user.key,
        json: teamsBot('8100000004'),
      });
      expect(await storedFlag(defaulted.body.id)).toBe(true);
      const refused = await recordingByDefault.request('POST', '/bots', {
        key: user.key,
        json: teamsBot('8100000005', { recording_enabled: false }),
      });
      expect(await storedFlag(refused.body.id)).toBe(false);
    } finally {
      await recordingByDefault.close();
    }
  });
});

describe('OpenAPI', () => {
  it('documents the recordings endpoints and the meeting’s recordings', async () => {
    const document = (await api.request('GET', '/openapi.json')).body;
    expect(document.paths['/recordings/{id}'].get).toBeDefined();
    expect(document.paths['/recordings/{id}'].delete).toBeDefined();
    expect(Object.keys(document.paths['/recordings/{id}/media'].get.responses)).toEqual(
      expect.arrayContaining(['200', '206', '401', '404', '409', '416', '503']),
    );
    expect(Object.keys(document.components.schemas.MeetingDetail.properties)).toContain('recordings');
    expect(document.components.schemas.Recording.properties.media_url).toBeDefined();
    expect(document.components.schemas.CreateBotRequest.properties.recording_enabled.type).toBe('boolean');
  });
});
