import { z } from 'zod';
import {
  apiKeySummarySchema,
  issuedTokenSchema,
  userDetailSchema,
  userSchema,
} from '../shared/accounts/wire.js';
import { botConfigAcceptedSchema, botStatusSchema, runningBotSchema } from '../shared/bots/wire.js';
import { PLATFORMS } from '../shared/contract/platforms.js';
import {
  deletedMeetingsSchema,
  meetingEventSchema,
  meetingEventsSchema,
  meetingListSchema,
  meetingSchema,
  updatedMeetingSchema,
} from '../shared/meetings/wire.js';
import { RECORDING_CONTENT_TYPE } from '../shared/recordings/store.js';
import {
  deletedRecordingSchema,
  meetingDetailSchema,
  recordingDetailSchema,
  recordingSchema,
} from '../shared/recordings/wire.js';
import { TRANSCRIPT_FORMATS } from '../shared/transcripts/export-formats.js';
import { segmentSchema, transcriptSchema } from '../shared/transcripts/wire.js';
import {
  deliveryListSchema,
  deliverySchema,
  webhookSettingsSchema,
  webhookTestResultSchema,
} from '../shared/webhooks/wire.js';
import { createTokenRequest, createUserRequest, updateUserRequest } from './routes/admin/schema.js';
import { createBotRequest, updateBotConfigRequest } from './routes/bots/schema.js';
import { updateMeetingDataRequest } from './routes/meetings/schema.js';
import { webhookSettingsRequest } from './routes/user/schema.js';

export const errorSchema = z
  .object({ error: z.string() })
  .strict()
  .meta({ id: 'Error', description: 'Every error response: one member, `error`.' });

// Every schema with an id, in the order the document lists them (whatever order their modules load in).
const documented = [
  userSchema,
  apiKeySummarySchema,
  userDetailSchema,
  issuedTokenSchema,
  createUserRequest,
  updateUserRequest,
  createTokenRequest,
  webhookSettingsRequest,
  webhookSettingsSchema,
  webhookTestResultSchema,
  deliverySchema,
  deliveryListSchema,
  createBotRequest,
  updateBotConfigRequest,
  botConfigAcceptedSchema,
  runningBotSchema,
  botStatusSchema,
  meetingSchema,
  meetingListSchema,
  recordingSchema,
  meetingDetailSchema,
  updateMeetingDataRequest,
  updatedMeetingSchema,
  deletedMeetingsSchema,
  meetingEventSchema,
  meetingEventsSchema,
  segmentSchema,
  transcriptSchema,
  recordingDetailSchema,
  deletedRecordingSchema,
  errorSchema,
];

function schemaId(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('schema has no id');
  return id;
}
const ref = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${schemaId(schema)}` });
const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema: ref(schema) } } });
const error = (description: string) => ({ description, ...json(errorSchema) });
const body = (schema: z.ZodType) => ({ required: true, ...json(schema) });

const platformParam = {
  name: 'platform',
  in: 'path',
  required: true,
  schema: { type: 'string', enum: [...PLATFORMS] },
};
const nativeIdParam = {
  name: 'native_meeting_id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'Google Meet: xxx-xxxx-xxx (lowercase letters). Teams: digits.',
};
const meetingRef = [platformParam, nativeIdParam];
const recordingIdParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
const userAuth = [{ ApiKey: [] }];
const adminAuth = [{ AdminApiKey: [] }];
const common = {
  401: error('Missing or invalid X-API-Key: `Unauthorized`'),
  429: error(
    'Over the per-key request rate (`Rate limit exceeded: …`) or, from this address, over the failed-authentication limit (`Too many failed authentication attempts …`); `Retry-After` says when to try again',
  ),
  503: error(
    'Postgres is unreachable for now (a restart, a failover): `Database unavailable; try again shortly`, with `Retry-After`',
  ),
};

/** What the document states of the limits, as this deployment has them set. */
export interface DocumentedLimits {
  listDefaultLimit: number;
  listMaxLimit: number;
  meetingDataMaxBytes: number;
  liveStreamsPerUser: number;
}

const DEFAULT_LIMITS: DocumentedLimits = {
  listDefaultLimit: 100,
  listMaxLimit: 1000,
  meetingDataMaxBytes: 65_536,
  liveStreamsPerUser: 20,
};

export function buildOpenApiDocument(
  serverUrl?: string,
  limits: DocumentedLimits = DEFAULT_LIMITS,
): Record<string, unknown> {
  const page = (name: string) => [
    {
      name,
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: limits.listMaxLimit, default: limits.listDefaultLimit },
    },
  ];
  const offset = (name: string) => [
    { name, in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
  ];
  const { schemas: generated } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Record<string, unknown>> };
  const schemas = Object.fromEntries(
    documented.map((schema) => {
      const id = schemaId(schema);
      const json = generated[id];
      if (!json) throw new Error(`schema ${id} was not generated`);
      delete json.$schema;
      return [id, json];
    }),
  );
  const undocumented = Object.keys(generated).filter((id) => !(id in schemas));
  if (undocumented.length > 0) throw new Error(`schemas missing from the document's list: ${undocumented}`);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Meetbot API',
      version: '1.0.0',
      description:
        'Send transcription bots into Google Meet and Microsoft Teams meetings and read their transcripts.',
    },
    ...(serverUrl && { servers: [{ url: serverUrl }] }),
    security: userAuth,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        AdminApiKey: { type: 'apiKey', in: 'header', name: 'X-Admin-API-Key' },
        MediaToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description:
            'A recording’s own media token (in its `media_url`); opens that recording’s media only',
        },
      },
      schemas,
    },
    paths: {
      '/bots': {
        post: {
          summary: 'Create Bot: send a bot to a meeting',
          requestBody: body(createBotRequest),
          responses: {
            201: { description: 'The new meeting, status `requested`', ...json(meetingSchema) },
            400: error('Invalid input; for a bad meeting id exactly `Invalid meeting ID format`'),
            ...common,
            409: error('A bot is already running or starting for this meeting'),
            429: error(
              '`Too many concurrent bots`; or over the per-key request rate or failed-authentication limit (with `Retry-After`)',
            ),
            503: error(
              'The job queue is unreachable, nothing was started; or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`)',
            ),
          },
        },
      },
      '/bots/status': {
        get: {
          summary: 'Get Bot Status: the bots still running',
          responses: { 200: { description: 'Running bots', ...json(botStatusSchema) }, ...common },
        },
      },
      '/bots/{platform}/{native_meeting_id}': {
        delete: {
          summary: 'Stop Bot',
          parameters: meetingRef,
          responses: {
            202: { description: 'The meeting, now `completed`; the bot is leaving', ...json(meetingSchema) },
            ...common,
            404: error('`Bot not found`'),
          },
        },
      },
      '/bots/{platform}/{native_meeting_id}/config': {
        put: {
          summary: 'Update Bot Configuration (active bots only)',
          parameters: meetingRef,
          requestBody: body(updateBotConfigRequest),
          responses: {
            202: { description: 'Stored and sent to the bot', ...json(botConfigAcceptedSchema) },
            400: error('Invalid input'),
            ...common,
            404: error('`Bot not found`'),
            503: error(
              'Redis is unreachable: the new settings were saved but not sent to the bot; or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`)',
            ),
          },
        },
      },
      '/meetings': {
        get: {
          summary: 'List Meetings, newest first',
          parameters: [...page('limit'), ...offset('offset')],
          responses: {
            200: { description: 'Meetings', ...json(meetingListSchema) },
            400: error('Invalid query'),
            ...common,
          },
        },
      },
      '/meetings/{id}': {
        get: {
          summary: 'Get Meeting, with its recordings',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            200: {
              description: 'The meeting (the spec’s fields) and its `recordings`',
              ...json(meetingDetailSchema),
            },
            ...common,
            404: error('`Meeting not found`'),
          },
        },
      },
      '/meetings/{id}/events': {
        get: {
          summary:
            "The meeting's status transitions, oldest first, with time, source, reason and detail (beyond the spec)",
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            200: { description: 'Events', ...json(meetingEventsSchema) },
            ...common,
            404: error('`Meeting not found`'),
          },
        },
      },
      '/meetings/{platform}/{native_meeting_id}': {
        patch: {
          summary: 'Update Meeting Data (latest meeting with this id); null removes a member',
          parameters: meetingRef,
          requestBody: body(updateMeetingDataRequest),
          responses: {
            200: { description: 'The meeting after the update', ...json(updatedMeetingSchema) },
            400: error('Invalid input'),
            ...common,
            404: error('`Meeting not found`'),
            413: error(
              `The meeting's data would take more than ${limits.meetingDataMaxBytes} bytes; nothing changed`,
            ),
          },
        },
        delete: {
          summary:
            'Delete the finished meetings with this id, their transcripts, metadata and recordings (their files too)',
          parameters: meetingRef,
          responses: {
            200: { description: 'Deleted', ...json(deletedMeetingsSchema) },
            ...common,
            404: error('`Meeting not found`'),
            409: error('A bot is still running for this meeting'),
          },
        },
      },
      '/transcripts/{platform}/{native_meeting_id}': {
        get: {
          summary: 'Get Transcripts (latest meeting with this id), segments in chronological order',
          description:
            'JSON by default. `?format=txt|srt|vtt` (or, without `format`, an `Accept` of `text/plain`, `application/x-subrip` / `text/srt`, `text/vtt`) answers the transcript as readable text, SubRip or WebVTT subtitles instead: one line or cue per segment with words, times from the start of the transcript, the speaker when one was named (`Speaker: text`; a `<v Speaker>` voice span in WebVTT), line breaks in the text collapsed. `format` wins over `Accept`; `*/*`, no `Accept` or one that also accepts JSON gets JSON.',
          parameters: [
            ...meetingRef,
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
            400: error('An unknown `format`: `format: must be one of json, txt, srt, vtt`'),
            ...common,
            404: error('`Meeting not found`'),
            406: error(
              '`Accept` names only types this endpoint does not write (and no `format` was given): `Not acceptable: …`',
            ),
          },
        },
      },
      '/transcripts/{platform}/{native_meeting_id}/stream': {
        get: {
          summary:
            'Follow the transcript live (Server-Sent Events): status history and current segments, then every committed change, then `end`',
          parameters: [
            ...meetingRef,
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'Resume after this event: only what changed since is sent',
            },
          ],
          responses: {
            200: {
              description: 'Events `status`, `segment` and `end`; `: keep-alive` comments every 15 s',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
            ...common,
            404: error('`Meeting not found`'),
            429: error(
              `${limits.liveStreamsPerUser} live streams of this user are open already; or a rate limit (see the other answers)`,
            ),
          },
        },
      },
      '/recordings/{id}': {
        get: {
          summary: 'A recording: its state, size, duration, time base and media URL, with its meeting',
          parameters: [recordingIdParam],
          responses: {
            200: { description: 'The recording', ...json(recordingDetailSchema) },
            ...common,
            404: error('`Recording not found` (absent, deleted, or another user’s)'),
          },
        },
        delete: {
          summary:
            'Delete a recording and its files (the files go at once, or shortly after if the storage is unreachable)',
          parameters: [recordingIdParam],
          responses: {
            200: { description: 'Deleted', ...json(deletedRecordingSchema) },
            ...common,
            404: error('`Recording not found`'),
            409: error('The bot is still recording it: stop the bot first'),
          },
        },
      },
      '/recordings/{id}/media': {
        get: {
          summary: 'The recording’s audio, whole or one byte range (HEAD: the same headers, no body)',
          description:
            'Authenticated by `X-API-Key`, or without it by the `token` query parameter that `media_url` carries, so `<audio src="…media_url…">` plays and seeks in a browser. One range per request (`bytes=a-b`, `bytes=a-`, `bytes=-n`): several ranges get the whole file (200). `If-Range` with another ETag gets the whole file.',
          security: [{ ApiKey: [] }, { MediaToken: [] }],
          parameters: [
            recordingIdParam,
            {
              name: 'Range',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              example: 'bytes=0-65535',
            },
          ],
          responses: {
            200: {
              description: 'The whole file, with `Accept-Ranges: bytes`, `Content-Length` and `ETag`',
              content: { [RECORDING_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
            },
            206: {
              description: 'The range asked for, with `Content-Range: bytes a-b/size`',
              content: { [RECORDING_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary' } } },
            },
            401: error(
              'Missing or invalid X-API-Key, or a token that is not this recording’s: `Unauthorized`',
            ),
            404: error('`Recording not found`; or it failed, or its file is gone, and it has no media'),
            409: error('The recording is still being recorded: its media is served once it is ready'),
            416: error('The range starts past the end of the file; `Content-Range: bytes */size`'),
            429: common[429],
            503: error(
              'The recording storage (or Postgres) is unreachable for now: `Recording storage unavailable; try again shortly`, with `Retry-After`',
            ),
          },
        },
      },
      '/user/webhook': {
        get: {
          summary: 'Your webhook endpoint, options and signing secret (the secret is created on first use)',
          responses: { 200: { description: 'Settings', ...json(webhookSettingsSchema) }, ...common },
        },
        put: {
          summary:
            'Set your webhook endpoint (null turns it off), signing secret and options; every meeting without its own webhook_url reports here',
          requestBody: body(webhookSettingsRequest),
          responses: {
            200: { description: 'Settings', ...json(webhookSettingsSchema) },
            400: error(
              'Invalid input, or an endpoint the policy refuses (private, loopback, link-local, not https)',
            ),
            ...common,
          },
        },
      },
      '/user/webhook/rotate-secret': {
        post: {
          summary: 'Replace your signing secret with a new random one',
          responses: { 200: { description: 'Settings', ...json(webhookSettingsSchema) }, ...common },
        },
      },
      '/user/webhook/test': {
        post: {
          summary:
            'Send a signed `webhook.test` event to your endpoint now and report its answer (not stored, not retried)',
          responses: {
            200: { description: 'What the endpoint answered', ...json(webhookTestResultSchema) },
            ...common,
            409: error('No webhook_url is set'),
          },
        },
      },
      '/user/webhook/deliveries': {
        get: {
          summary:
            'Your webhook deliveries, newest first: what went out, what is retrying, what was given up',
          parameters: [
            {
              name: 'status',
              in: 'query',
              schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
            },
            { name: 'meeting_id', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
            ...page('limit'),
            ...offset('offset'),
          ],
          responses: {
            200: { description: 'Deliveries', ...json(deliveryListSchema) },
            400: error('Invalid query'),
            ...common,
          },
        },
      },
      '/user/webhook/deliveries/{id}/retry': {
        post: {
          summary:
            "Send a failed delivery again, with a fresh retry window, ahead of any of the meeting's deliveries still pending",
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
          ],
          responses: {
            202: { description: 'Queued again', ...json(deliverySchema) },
            ...common,
            404: error('Delivery not found'),
            409: error('Only a failed delivery can be retried'),
          },
        },
      },
      '/admin/users': {
        post: {
          summary: 'Find or create a user by email',
          security: adminAuth,
          requestBody: body(createUserRequest),
          responses: {
            200: { description: 'Existing user', ...json(userSchema) },
            201: { description: 'Created', ...json(userSchema) },
            403: error('Bad admin key'),
          },
        },
        get: {
          summary: 'List users',
          security: adminAuth,
          parameters: [...offset('skip'), ...page('limit')],
          responses: {
            200: {
              description: 'Users',
              content: { 'application/json': { schema: { type: 'array', items: ref(userSchema) } } },
            },
            403: error('Bad admin key'),
          },
        },
      },
      '/admin/users/email/{email}': {
        get: {
          summary: 'Get a user by email',
          security: adminAuth,
          parameters: [{ name: 'email', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: { description: 'User', ...json(userSchema) },
            403: error('Bad admin key'),
            404: error('User not found'),
          },
        },
      },
      '/admin/users/{id}': {
        get: {
          summary: 'Get a user with their API keys (never the secrets)',
          security: adminAuth,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            200: { description: 'User', ...json(userDetailSchema) },
            403: error('Bad admin key'),
            404: error('User not found'),
          },
        },
        patch: {
          summary: 'Update a user (name, image_url, max_concurrent_bots, data merge)',
          security: adminAuth,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          requestBody: body(updateUserRequest),
          responses: {
            200: { description: 'User', ...json(userSchema) },
            400: error('Invalid input'),
            403: error('Bad admin key'),
            404: error('User not found'),
          },
        },
      },
      '/admin/users/{id}/tokens': {
        post: {
          summary: 'Issue a new API key; the key is returned once, as `token`',
          security: adminAuth,
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
            { name: 'name', in: 'query', required: false, schema: { type: 'string' } },
          ],
          requestBody: { required: false, ...json(createTokenRequest) },
          responses: {
            201: { description: 'Issued', ...json(issuedTokenSchema) },
            403: error('Bad admin key'),
            404: error('User not found'),
          },
        },
      },
      '/admin/users/{id}/webhook': {
        get: {
          summary: "A user's webhook settings",
          security: adminAuth,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            200: { description: 'Settings', ...json(webhookSettingsSchema) },
            403: error('Bad admin key'),
            404: error('User not found'),
          },
        },
        put: {
          summary: "Set a user's webhook endpoint, secret and options (as PUT /user/webhook)",
          security: adminAuth,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          requestBody: body(webhookSettingsRequest),
          responses: {
            200: { description: 'Settings', ...json(webhookSettingsSchema) },
            400: error('Invalid input or refused endpoint'),
            403: error('Bad admin key'),
            404: error('User not found'),
          },
        },
      },
      '/admin/tokens/{id}': {
        delete: {
          summary: 'Revoke an API key',
          security: adminAuth,
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            204: { description: 'Revoked' },
            403: error('Bad admin key'),
            404: error('Token not found'),
          },
        },
      },
      '/healthz': {
        get: { summary: 'Liveness', security: [], responses: { 200: { description: 'The process is up' } } },
      },
      '/readyz': {
        get: {
          summary: 'Readiness: Postgres and Redis reachable',
          security: [],
          responses: { 200: { description: 'Ready' }, 503: { description: 'Not ready' } },
        },
      },
    },
  };
}
