import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingStorage } from '../../../shared/recordings/create-storage.js';
import {
  findOrCreateRecording,
  findRecording,
  markRecordingFailed,
  markRecordingReady,
  RECORDING_CONTENT_TYPE,
  type RecordingRecord,
  recordChunk,
} from '../../../shared/recordings/store.js';
import {
  ISO_UTC,
  MEETING_FIELDS,
  startTestApi,
  type TestApi,
  type TestUser,
  teamsBot,
} from '../../support/api.js';
import { advanceMeeting, transitionMeeting } from '../../support/meetings.js';

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

describe('GET /meetings/{id} and GET /recordings/{id}', () => {
  it('lists the meeting’s recordings beside the spec’s fields, oldest first, without deleted ones', async () => {
    const { id } = await meeting(user);
    const first = await recording(id, user, { bytes: audioBytes(4000) });
    const second = await recording(id, user, { state: 'recording', startSeconds: 61.5 });
    const third = await recording(id, user);
    expect((await api.request('DELETE', `/recordings/${third.id}`, { key: user.key })).status).toBe(200);

    const response = await api.request('GET', `/meetings/${id}`, { key: user.key });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual([...MEETING_FIELDS, 'recordings'].sort());
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
    expect(ready.media_url).toBe(`${api.baseUrl}/recordings/${first.id}/media?token=${first.mediaToken}`);
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
      media_url: `${api.baseUrl}/recordings/${failed.id}/media?token=${failed.mediaToken}`,
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
      expect(response.body.media_url).toBe(
        `https://meetbot.example.test/api/recordings/${made.id}/media?token=${made.mediaToken}`,
      );
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
    const wrong = await media(`${mediaPath(ready.id)}?token=${ready.mediaToken.slice(0, -1)}x`);
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.bytes.toString())).toEqual({ error: 'Unauthorized' });
    expect((await media(`${mediaPath(ready.id)}?token=${sibling.mediaToken}`)).status).toBe(401);
    expect((await media(`${mediaPath(ready.id)}?token=`)).status).toBe(401);
    expect((await media(`${mediaPath(ready.id)}?token=${'a'.repeat(5000)}`)).status).toBe(401);
    expect((await media(mediaPath(ready.id))).status).toBe(401);
    // A token opens its own recording's media and nothing else.
    expect((await media(`/recordings/${ready.id}?token=${ready.mediaToken}`)).status).toBe(401);
    const foreign = await media(mediaPath(ready.id), { 'X-API-Key': other.key });
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString())).toEqual({ error: 'Recording not found' });
    // A bad key is a bad key, whatever token comes with it.
    expect(
      (await media(`${mediaPath(ready.id)}?token=${ready.mediaToken}`, { 'X-API-Key': 'nope' })).status,
    ).toBe(401);
  });

  it('counts failed tokens against the client address like failed keys', async () => {
    const limited = await startTestApi({
      replicaOf: api,
      rateLimited: true,
      env: { AUTH_FAILURES_PER_IP_PER_MINUTE: '3' },
    });
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5; attempt++) {
        statuses.push(
          (await fetch(`${limited.baseUrl}${mediaPath(ready.id)}?token=guess-${attempt}`)).status,
        );
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      // Even the right token waits until the address's window ends.
      const blocked = await fetch(`${limited.baseUrl}${mediaPath(ready.id)}?token=${ready.mediaToken}`);
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
    expect((await media(`${mediaPath(live.id)}?token=${live.mediaToken}`)).status).toBe(409);

    const finished = await meeting(user);
    const failed = await recording(finished.id, user, { state: 'failed' });
    const response = await media(mediaPath(failed.id), { 'X-API-Key': user.key });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.bytes.toString())).toEqual({
      error: 'Recording failed and has no media; GET /recordings/{id} says why',
    });
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

describe('storage unreachable', () => {
  let down: TestApi;

  beforeAll(async () => {
    const port = await closedPort();
    // The same database, with the real S3 storage pointed at a closed port.
    down = await startTestApi({
      replicaOf: api,
      recordingStorage: (config) =>
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
        ),
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

    expect((await api.request('DELETE', `/recordings/${made.id}`, { key: other.key })).status).toBe(404);
    const response = await api.request('DELETE', `/recordings/${made.id}`, { key: user.key });
    expect(response).toMatchObject({ status: 200, body: { message: 'Recording deleted', id: made.id } });
    expect(await api.recordingStorage.stat(made.storageKey)).toBeNull();
    expect(await findRecording(api.database.db, made.id)).toBeNull();
    expect((await media(`${mediaPath(made.id)}?token=${made.mediaToken}`)).status).toBe(401);
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
