import { z } from 'zod';
import {
  apiKeySummarySchema,
  botAccountSchema,
  issuedTokenSchema,
  userDetailSchema,
  userSchema,
} from '../../shared/accounts/wire.js';
import { speakAcceptedSchema, speakStoppedSchema } from '../../shared/bots/speech-wire.js';
import {
  botConfigAcceptedSchema,
  botStatusSchema,
  runningBotSchema,
  screenAcceptedSchema,
} from '../../shared/bots/wire.js';
import { calendarFeedListSchema, calendarFeedSchema, feedPollSchema } from '../../shared/calendars/wire.js';
import { chatMessageSchema, chatMessagesSchema, chatSendAcceptedSchema } from '../../shared/chat/wire.js';
import { meetingDetailSchema } from '../../shared/meeting-details/wire.js';
import {
  deletedMeetingsSchema,
  meetingEventSchema,
  meetingListSchema,
  meetingSchema,
  updatedMeetingSchema,
} from '../../shared/meetings/wire.js';
import {
  meetingEventsSchema,
  meetingParticipantSchema,
  participantEventSchema,
} from '../../shared/participants/wire.js';
import {
  deletedRecordingSchema,
  recordingDetailSchema,
  recordingSchema,
  rotatedMediaLinksSchema,
} from '../../shared/recordings/wire.js';
import { searchHitSchema, searchResultsSchema } from '../../shared/search/wire.js';
import { segmentSchema, transcriptSchema } from '../../shared/transcripts/wire.js';
import {
  deliveryListSchema,
  deliverySchema,
  webhookSettingsSchema,
  webhookTestResultSchema,
} from '../../shared/webhooks/wire.js';
import {
  createBotAccountRequest,
  createTokenRequest,
  createUserRequest,
  updateBotAccountRequest,
  updateUserRequest,
} from '../routes/admin/schema.js';
import {
  createBotRequest,
  moveBotRequest,
  screenRequest,
  sendChatRequest,
  speakRequest,
  updateBotConfigRequest,
} from '../routes/bots/schema.js';
import { createCalendarFeedRequest, updateCalendarFeedRequest } from '../routes/calendar-feeds/schema.js';
import { mcpRequest } from '../routes/mcp/schema.js';
import { updateMeetingDataRequest } from '../routes/meetings/schema.js';
import {
  documentedPath,
  type OpenApiObject,
  type Route,
  type RouteLimits,
  withLimits,
} from '../routes/route.js';
import { webhookSettingsRequest } from '../routes/user/schema.js';
import { documentedRoutes } from './documented-routes.js';
import { errorSchema, json, schemaId } from './responses.js';

// Every schema with an id, in the order the document lists them (whatever order their modules load in).
const documented = [
  userSchema,
  apiKeySummarySchema,
  userDetailSchema,
  issuedTokenSchema,
  createUserRequest,
  updateUserRequest,
  createTokenRequest,
  botAccountSchema,
  createBotAccountRequest,
  updateBotAccountRequest,
  webhookSettingsRequest,
  webhookSettingsSchema,
  webhookTestResultSchema,
  deliverySchema,
  deliveryListSchema,
  createBotRequest,
  updateBotConfigRequest,
  moveBotRequest,
  botConfigAcceptedSchema,
  runningBotSchema,
  botStatusSchema,
  speakRequest,
  speakAcceptedSchema,
  speakStoppedSchema,
  screenRequest,
  screenAcceptedSchema,
  createCalendarFeedRequest,
  updateCalendarFeedRequest,
  feedPollSchema,
  calendarFeedSchema,
  calendarFeedListSchema,
  meetingSchema,
  meetingListSchema,
  recordingSchema,
  meetingDetailSchema,
  updateMeetingDataRequest,
  updatedMeetingSchema,
  deletedMeetingsSchema,
  meetingEventSchema,
  meetingEventsSchema,
  participantEventSchema,
  meetingParticipantSchema,
  segmentSchema,
  transcriptSchema,
  searchHitSchema,
  searchResultsSchema,
  recordingDetailSchema,
  deletedRecordingSchema,
  rotatedMediaLinksSchema,
  sendChatRequest,
  chatSendAcceptedSchema,
  chatMessageSchema,
  chatMessagesSchema,
  mcpRequest,
  errorSchema,
];

/** The limits of a deployment that keeps the defaults (the committed document states these). */
export const DEFAULT_ROUTE_LIMITS: RouteLimits = {
  pageSizes: { defaultLimit: 100, maxLimit: 1000 },
  meetingDataMaxBytes: 65_536,
  liveStreamsPerUser: 20,
};

function componentSchemas(): Record<string, Record<string, unknown>> {
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
  return schemas;
}

function operation(route: Route<never>, limits: RouteLimits): OpenApiObject {
  const responses = withLimits(route.responses, limits);
  // Whatever a route validates can be refused with a 400; the document must say what that looks like.
  if ((route.params || route.body || route.query) && !responses[400]) {
    throw new Error(`${route.method} ${route.path} validates its input but documents no 400`);
  }
  return {
    summary: route.summary,
    ...(route.description !== undefined && { description: route.description }),
    ...(route.auth.security && { security: route.auth.security }),
    ...(route.parameters && { parameters: withLimits(route.parameters, limits) }),
    ...(route.body && { requestBody: { required: !route.bodyMayBeEmpty, ...json(route.body) } }),
    responses,
  };
}

/** `paths`: each path once, in the order its first route comes, with its operations in their order. */
function paths(routes: readonly Route<never>[], limits: RouteLimits): Record<string, OpenApiObject> {
  const byPath: Record<string, OpenApiObject> = {};
  for (const route of routes) {
    const path = documentedPath(route.path);
    const operations = byPath[path] ?? {};
    byPath[path] = operations;
    if (route.method in operations) throw new Error(`${route.method} ${route.path} is declared twice`);
    operations[route.method] = operation(route, limits);
  }
  return byPath;
}

/** The OpenAPI document of the routes, as this deployment serves it (its URL and limits). */
export function buildOpenApiDocument(
  serverUrl?: string,
  limits: RouteLimits = DEFAULT_ROUTE_LIMITS,
  routes: readonly Route<never>[] = documentedRoutes,
): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Meetbot API',
      version: '1.0.0',
      description:
        'Send transcription bots into Google Meet and Microsoft Teams meetings and read their transcripts.',
    },
    ...(serverUrl && { servers: [{ url: serverUrl }] }),
    // What userAuth routes require: they state no `security` of their own.
    security: [{ ApiKey: [] }],
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        BearerApiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The same user API key as `Authorization: Bearer <key>` (accepted by /mcp only)',
        },
        AdminApiKey: { type: 'apiKey', in: 'header', name: 'X-Admin-API-Key' },
        MediaToken: {
          type: 'apiKey',
          in: 'query',
          name: 'token',
          description:
            'The signed, expiring token in a recording’s `media_url`; opens that recording’s media only',
        },
      },
      schemas: componentSchemas(),
    },
    paths: paths(routes, limits),
  };
}

/** The committed form of the document (docs/openapi.json): two-space indents and a final newline. */
export function serializeOpenApiDocument(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
