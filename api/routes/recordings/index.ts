import { SpecErrors, UnauthorizedError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import { recordingDetailJson } from '../../../shared/recordings/serialize.js';
import {
  deleteRecording,
  getRecording,
  rangeNotSatisfiable,
  readRecordingMedia,
  mediaLinksFor,
  recordingByMediaToken,
  recordingMediaSize,
  rotateMediaLinks,
} from '../../../shared/recordings/service.js';
import type { RecordingStorage } from '../../../shared/recordings/storage.js';
import { RECORDING_CONTENT_TYPE, type RecordingRecord } from '../../../shared/recordings/store.js';
import {
  deletedRecordingSchema,
  recordingDetailSchema,
  rotatedMediaLinksSchema,
} from '../../../shared/recordings/wire.js';
import { type AppContext, requireAuth } from '../../context.js';
import type { RateLimits } from '../../middleware/rate-limits.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { integerIdParameter, invalidIntegerId } from '../path-params.js';
import { publicBaseUrl } from '../public-url.js';
import { type RouteAuth, routesOf, userAuth } from '../route.js';
import { parseRange } from './range.js';
import { recordingIdParams } from './schema.js';

export interface RecordingsRouteDeps {
  db: Knex;
  storage: RecordingStorage;
  /** Failed media tokens count against the client address like failed API keys. */
  rateLimits: RateLimits;
  /** PUBLIC_BASE_URL: where media URLs point (the request's origin when unset). */
  publicBaseUrl: string | undefined;
  /** RECORDING_MEDIA_LINK_TTL_SECONDS: how long the media URLs work. */
  mediaLinkTtlSeconds: number;
}

const MAX_TOKEN_LENGTH = 256;

/**
 * The media route's authentication: the usual X-API-Key when one is sent (or when there is no
 * `?token=`); otherwise the handler checks the token against the recording, so a browser's <audio>
 * element can play a media_url without headers. Every answer, refusals too, stays out of shared
 * caches, and a page the media is played from never hands its URL (with the token) on as a Referer.
 */
const keyOrMediaToken: RouteAuth = {
  security: [{ ApiKey: [] }, { MediaToken: [] }],
  middleware: (kit) => (ctx, next) => {
    ctx.set('Cache-Control', 'private');
    ctx.set('Referrer-Policy', 'no-referrer');
    return ctx.get('X-API-Key') === '' && typeof ctx.query.token === 'string'
      ? next()
      : kit.requireUser(ctx, next);
  },
};

/** The recording the request may read: the key's user's, or the one its media token opens. */
async function mediaRecording(
  deps: RecordingsRouteDeps,
  ctx: AppContext,
  id: number,
): Promise<RecordingRecord> {
  if (ctx.state.auth) return (await getRecording(deps.db, ctx.state.auth, id)).recording;
  await deps.rateLimits.assertMayAuthenticate(ctx.ip);
  const token = ctx.query.token as string;
  const recording = token.length <= MAX_TOKEN_LENGTH ? await recordingByMediaToken(deps.db, id, token) : null;
  if (!recording) {
    await deps.rateLimits.authenticationFailed(ctx.ip);
    throw new UnauthorizedError(SpecErrors.unauthorized);
  }
  return recording;
}

const route = routesOf<RecordingsRouteDeps>();
const media = { [RECORDING_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } };

export const recordingRoutes = [
  route({
    method: 'post',
    path: '/recordings/media-links/rotate',
    auth: userAuth,
    summary: 'Rotate your media links: every `media_url` you were given until now stops working',
    description:
      'For a media_url that leaked. GET /recordings/{id} or GET /meetings/{id} then hands out new links; other users’ links are untouched.',
    responses: {
      200: { description: 'Rotated', ...json(rotatedMediaLinksSchema) },
      ...commonErrors,
    },
    async handler(ctx, _input, deps) {
      await rotateMediaLinks(deps.db, requireAuth(ctx));
      ctx.body = { message: 'Media links rotated: every media_url issued before now is refused' };
    },
  }),

  route({
    method: 'get',
    path: '/recordings/:id',
    auth: userAuth,
    params: recordingIdParams,
    summary: 'A recording: its state, size, duration, time base and media URL, with its meeting',
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'The recording', ...json(recordingDetailSchema) },
      400: invalidIntegerId,
      ...commonErrors,
      404: error('`Recording not found` (absent, deleted, or another user’s)'),
    },
    async handler(ctx, { params }, deps) {
      const auth = requireAuth(ctx);
      const { recording, meeting } = await getRecording(deps.db, auth, params.id);
      const base = publicBaseUrl(ctx, deps.publicBaseUrl);
      const links = await mediaLinksFor(deps.db, auth, base, deps.mediaLinkTtlSeconds);
      ctx.body = recordingDetailJson(recording, meeting, links);
    },
  }),

  // GET also answers HEAD (the router registers both): the headers without opening the file.
  route({
    method: 'get',
    path: '/recordings/:id/media',
    auth: keyOrMediaToken,
    params: recordingIdParams,
    summary: 'The recording’s audio, whole or one byte range (HEAD: the same headers, no body)',
    description:
      'Authenticated by `X-API-Key`, or without it by the `token` query parameter that `media_url` carries, so `<audio src="…media_url…">` plays and seeks in a browser; the token is signed, expires (RECORDING_MEDIA_LINK_TTL_SECONDS) and is refused once its owner rotates their media links, has no live API key or is deleted. Answers carry `Cache-Control: private` and `Referrer-Policy: no-referrer`. One range per request (`bytes=a-b`, `bytes=a-`, `bytes=-n`): several ranges get the whole file (200). `If-Range` with another ETag gets the whole file.',
    parameters: [
      integerIdParameter,
      { name: 'Range', in: 'header', required: false, schema: { type: 'string' }, example: 'bytes=0-65535' },
    ],
    responses: {
      200: {
        description: 'The whole file, with `Accept-Ranges: bytes`, `Content-Length` and `ETag`',
        content: media,
      },
      206: { description: 'The range asked for, with `Content-Range: bytes a-b/size`', content: media },
      400: invalidIntegerId,
      401: error(
        'Missing or invalid X-API-Key, or a token that is not this recording’s, has expired or was rotated: `Unauthorized`',
      ),
      404: error('`Recording not found`; or it failed, or its file is gone, and it has no media'),
      409: error('The recording is still being recorded: its media is served once it is ready'),
      416: error('The range starts past the end of the file; `Content-Range: bytes */size`'),
      429: commonErrors[429],
      503: error(
        'The recording storage (or Postgres) is unreachable for now: `Recording storage unavailable; try again shortly`, with `Retry-After`',
      ),
    },
    async handler(ctx, { params }, deps) {
      const recording = await mediaRecording(deps, ctx, params.id);
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
    },
  }),

  route({
    method: 'delete',
    path: '/recordings/:id',
    auth: userAuth,
    params: recordingIdParams,
    summary:
      'Delete a recording and its files (the files go at once, or shortly after if the storage is unreachable)',
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'Deleted', ...json(deletedRecordingSchema) },
      400: invalidIntegerId,
      ...commonErrors,
      404: error('`Recording not found`'),
      409: error('The bot is still recording it: stop the bot first'),
    },
    async handler(ctx, { params }, deps) {
      await deleteRecording(
        { db: deps.db, storage: deps.storage, log: ctx.state.log },
        requireAuth(ctx),
        params.id,
      );
      ctx.body = { message: 'Recording deleted', id: params.id };
    },
  }),
];
