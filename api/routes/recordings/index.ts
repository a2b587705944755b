import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { SpecErrors, UnauthorizedError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import { recordingDetailJson } from '../../../shared/recordings/serialize.js';
import {
  deleteRecording,
  getRecording,
  rangeNotSatisfiable,
  readRecordingMedia,
  recordingByMediaToken,
  recordingMediaSize,
} from '../../../shared/recordings/service.js';
import type { RecordingStorage } from '../../../shared/recordings/storage.js';
import { RECORDING_CONTENT_TYPE, type RecordingRecord } from '../../../shared/recordings/store.js';
import { type AppContext, type AppState, requireAuth } from '../../context.js';
import type { RateLimits } from '../../middleware/rate-limits.js';
import { parseInput } from '../../middleware/validate.js';
import { publicBaseUrl } from '../public-url.js';
import { parseRange } from './range.js';
import { recordingIdParams } from './schema.js';

export interface RecordingsRouterDeps {
  db: Knex;
  storage: RecordingStorage;
  requireUser: Middleware<AppState>;
  /** Failed media tokens count against the client address like failed API keys. */
  rateLimits: RateLimits;
  /** PUBLIC_BASE_URL: where media URLs point (the request's origin when unset). */
  publicBaseUrl: string | undefined;
}

const MAX_TOKEN_LENGTH = 256;

/**
 * The media route's authentication: the usual X-API-Key when one is sent (or when there is no
 * `?token=`); otherwise the handler checks the token against the recording, so a browser's <audio>
 * element can play a media_url without headers.
 */
function keyUnlessToken(requireUser: Middleware<AppState>): Middleware<AppState> {
  return (ctx, next) =>
    ctx.get('X-API-Key') === '' && typeof ctx.query.token === 'string' ? next() : requireUser(ctx, next);
}

export function recordingsRouter(deps: RecordingsRouterDeps): Router<AppState> {
  const router = new Router<AppState>();

  /** The recording the request may read: the key's user's, or the one its media token opens. */
  async function mediaRecording(ctx: AppContext, id: number): Promise<RecordingRecord> {
    if (ctx.state.auth) return (await getRecording(deps.db, ctx.state.auth, id)).recording;
    await deps.rateLimits.assertMayAuthenticate(ctx.ip);
    const token = ctx.query.token as string;
    const recording =
      token.length <= MAX_TOKEN_LENGTH ? await recordingByMediaToken(deps.db, id, token) : null;
    if (!recording) {
      await deps.rateLimits.authenticationFailed(ctx.ip);
      throw new UnauthorizedError(SpecErrors.unauthorized);
    }
    return recording;
  }

  router.get('/recordings/:id', deps.requireUser, async (ctx) => {
    const { id } = parseInput(recordingIdParams, ctx.params, 'Path');
    const { recording, meeting } = await getRecording(deps.db, requireAuth(ctx), id);
    ctx.body = recordingDetailJson(recording, meeting, publicBaseUrl(ctx, deps.publicBaseUrl));
  });

  // GET also answers HEAD (the router registers both): the headers without opening the file.
  router.get('/recordings/:id/media', keyUnlessToken(deps.requireUser), async (ctx) => {
    const { id } = parseInput(recordingIdParams, ctx.params, 'Path');
    const recording = await mediaRecording(ctx, id);
    const files = { storage: deps.storage, log: ctx.state.log };
    const size = await recordingMediaSize(files, recording);
    // Once stored, a recording's bytes never change: its id and size name them.
    const etag = `"recording-${recording.id}-${size}"`;
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('ETag', etag);
    // If-Range names the version a client holds part of: any other version is sent whole.
    const ifRange = ctx.get('If-Range');
    const wanted =
      ifRange && ifRange !== etag ? { kind: 'whole' as const } : parseRange(ctx.get('Range'), size);
    if (wanted.kind === 'unsatisfiable') throw rangeNotSatisfiable(size);

    ctx.set('Content-Type', RECORDING_CONTENT_TYPE);
    ctx.set('Content-Disposition', `inline; filename="recording-${recording.id}.ogg"`);
    const range = wanted.kind === 'partial' ? wanted.range : undefined;
    if (range) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    } else {
      ctx.status = 200;
    }
    const length = range ? range.end - range.start + 1 : size;
    if (ctx.method !== 'HEAD') {
      // A whole empty file needs no read (and a zero-length range can't be asked for).
      if (length > 0) ctx.body = await readRecordingMedia(files, recording, range);
      else ctx.body = Buffer.alloc(0);
    }
    ctx.length = length;
  });

  router.delete('/recordings/:id', deps.requireUser, async (ctx) => {
    const { id } = parseInput(recordingIdParams, ctx.params, 'Path');
    await deleteRecording({ db: deps.db, storage: deps.storage, log: ctx.state.log }, requireAuth(ctx), id);
    ctx.body = { message: 'Recording deleted', id };
  });

  return router;
}
