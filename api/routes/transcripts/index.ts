import { z } from 'zod';
import { NotAcceptableError } from '../../../shared/infra/errors.js';
import type { ResponseCache } from '../../../shared/infra/response-cache.js';
import {
  FORMAT_MEDIA_TYPES,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from '../../../shared/transcripts/export-formats.js';
import { transcriptAnswer, transcriptExport } from '../../../shared/transcripts/service.js';
import { transcriptSchema } from '../../../shared/transcripts/wire.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error, ref } from '../../openapi/responses.js';
import { meetingRefParameters, meetingRefParams } from '../path-params.js';
import { type Route, routesOf, userAuth } from '../route.js';
import { negotiate } from './accept.js';
import { type TranscriptStreamDeps, transcriptStreamRoute } from './stream.js';

const transcriptQuery = z.object({
  format: z.enum(TRANSCRIPT_FORMATS, { error: `must be one of ${TRANSCRIPT_FORMATS.join(', ')}` }).optional(),
});

const OFFERS = TRANSCRIPT_FORMATS.map((id) => ({ id, mediaTypes: FORMAT_MEDIA_TYPES[id] }));
const PRODUCED = TRANSCRIPT_FORMATS.flatMap((id) => FORMAT_MEDIA_TYPES[id]).join(', ');

/** `?format=` when given, else what the Accept header prefers (JSON without one). */
function chosenFormat(
  format: TranscriptFormat | undefined,
  accept: string | undefined,
): { format: TranscriptFormat; byAccept: boolean } {
  if (format) return { format, byAccept: false };
  const negotiated = negotiate(accept, OFFERS);
  if (negotiated === undefined) {
    throw new NotAcceptableError(
      `Not acceptable: this endpoint answers ${PRODUCED}; or ask with ?format=${TRANSCRIPT_FORMATS.join('|')}`,
      { Vary: 'Accept' },
    );
  }
  return { format: negotiated, byAccept: true };
}

export interface TranscriptsRouteDeps extends TranscriptStreamDeps {
  /** Built answers, keyed by the version of what they show. */
  cache: ResponseCache;
}

const route = routesOf<TranscriptsRouteDeps>();

export const transcriptRoutes: Route<TranscriptsRouteDeps>[] = [
  route({
    method: 'get',
    path: '/transcripts/:platform/:native_meeting_id',
    auth: userAuth,
    params: meetingRefParams,
    query: transcriptQuery,
    summary: 'Get Transcripts (latest meeting with this id), segments in chronological order',
    description:
      'JSON by default. `?format=txt|srt|vtt` (or, without `format`, an `Accept` of `text/plain`, `application/x-subrip` / `text/srt`, `text/vtt`) answers the transcript as readable text, SubRip or WebVTT subtitles instead: one line or cue per segment with words, times from the start of the transcript, the speaker when one was named (`Speaker: text`; a `<v Speaker>` voice span in WebVTT), line breaks in the text collapsed. `format` wins over `Accept`; `*/*`, no `Accept` or one that also accepts JSON gets JSON.',
    parameters: [
      ...meetingRefParameters,
      {
        name: 'format',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: [...TRANSCRIPT_FORMATS], default: 'json' },
        description:
          '`json` (default), `txt` (`[HH:MM:SS] Speaker: text` lines), `srt` (SubRip) or `vtt` (WebVTT); overrides `Accept`',
      },
    ],
    responses: {
      200: {
        description:
          'Transcript. The text formats come with `Content-Disposition: inline; filename="<platform>-<native_meeting_id>.<format>"`, and `Vary: Accept` when `Accept` chose them',
        content: {
          'application/json': { schema: ref(transcriptSchema) },
          'text/plain': {
            schema: { type: 'string' },
            example: '[00:00:01] Alice: Hello everyone.\n[00:01:02] Shall we start?\n',
          },
          'application/x-subrip': {
            schema: { type: 'string' },
            example: '1\n00:00:01,000 --> 00:00:02,500\nAlice: Hello everyone.\n',
          },
          'text/vtt': {
            schema: { type: 'string' },
            example: 'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.500\n<v Alice>Hello everyone.</v>\n',
          },
        },
      },
      400: error(
        'An unknown `format`: `format: must be one of json, txt, srt, vtt`; or an unknown platform or a meeting id over 200 characters',
      ),
      ...commonErrors,
      404: error('`Meeting not found`'),
      406: error(
        '`Accept` names only types this endpoint does not write (and no `format` was given): `Not acceptable: …`',
      ),
    },
    async handler(ctx, { params, query }, deps) {
      const { format, byAccept } = chosenFormat(query.format, ctx.headers.accept);
      const auth = requireAuth(ctx);
      // A transcript is the meeting's words, written by whoever spoke: a browser must show it as the
      // type it is sent with (plain text stays text, never sniffed into HTML that runs a <script>).
      ctx.set('X-Content-Type-Options', 'nosniff');
      if (format === 'json') {
        ctx.type = 'application/json';
        ctx.body = await transcriptAnswer(
          deps.db,
          deps.cache,
          auth,
          params.platform,
          params.native_meeting_id,
        );
        return;
      }
      const answer = await transcriptExport(
        deps.db,
        deps.cache,
        auth,
        params.platform,
        params.native_meeting_id,
        format,
      );
      ctx.set('Content-Type', answer.contentType);
      ctx.set('Content-Disposition', `inline; filename="${answer.filename}"`);
      if (byAccept) ctx.set('Vary', 'Accept');
      ctx.body = answer.body;
    },
  }),
  transcriptStreamRoute,
];
