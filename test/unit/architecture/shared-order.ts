/**
 * The folders of shared/, lowest first: each imports only itself and the folders before it, so every
 * arrow between them points down this list (imports.test.ts enforces it; `npm run graph` draws it in
 * docs/shared-imports.md). Why this order:
 * - contract: what crosses a process, declared once (bot config, commands, events, streams and their
 *   codec, job names and payloads, platforms, meeting statuses). Pure declarations that the bot
 *   image carries too, so it imports nothing else of shared/.
 * - infra: config, Knex, Redis, queues, logging, errors, timeouts, and the outbound address policy
 *   every fetch of a user's URL follows (webhooks, calendar feeds, media: it belongs to none of
 *   them). It reads the contract's names and defaults (queue names, the embedded recognizer's
 *   profiles) and knows no feature.
 * - accounts: users and API keys. Every user-facing feature above checks a key against it.
 * - meetings: meeting rows and their status changes, the API's meeting reads and edits, and the
 *   worker's launch protocol (launch-store.ts). A status change is told to MeetingEvents
 *   (meetings/events.ts) inside its transaction, never to webhooks directly.
 * - transcripts: a meeting's segments (TranscriptEvents); the transcript read starts with the
 *   meeting's header, so it sits above meetings.
 * - participants: who bots saw in a meeting, joining, leaving and speaking (ParticipantEvents),
 *   stored from the bots' messages and read by meeting; above meetings, whose rows it uses.
 * - recordings: a meeting's audio (RecordingEvents), its media and signed links, deleting
 *   recordings with their files; meetings know nothing of recordings.
 * - meeting-details: a meeting with everything it carries: GET /meetings/{id} (the meeting, its
 *   recordings and participants) and deleting a meeting's data with its recordings' files. It
 *   gathers meetings, participants and recordings, so it sits right above them, and none of them
 *   needs to know the others.
 * - chat: the meeting chat messages bots read (ChatEvents), and their reads by meeting; above
 *   meetings, whose rows and reads it uses.
 * - search: full-text search over a user's transcripts and meeting data (GET /search, the MCP tool);
 *   it reads the rows meetings and transcripts write (their search columns kept by triggers).
 * - webhooks: the outbox receives the typed events of the five features below it
 *   (record-events.ts) and delivers them; it reads only their event types and segment JSON.
 * - bots: sending, scheduling, stopping and reconfiguring bots. It creates meetings, checks a bot's
 *   own webhook URL with the webhooks feature (bots is the only feature that imports webhooks),
 *   and owns the producers of the launch queue and the command streams.
 * - calendars: calendar feeds (iCalendar URLs fetched under the outbound address policy, expanded
 *   with ical.js) whose occurrences become scheduled bots through the bots feature's scheduling path.
 * - workers: the worker registry (heartbeats, free slots, lapsed workers' meetings).
 * The processes (api/, worker/) are the composition roots: they hand the webhook outbox to the
 * features as their event receiver (api/app.ts, worker/events/domain-events.ts).
 */
export const SHARED_ORDER = [
  'contract',
  'infra',
  'accounts',
  'meetings',
  'transcripts',
  'participants',
  'recordings',
  'meeting-details',
  'chat',
  'search',
  'webhooks',
  'bots',
  'calendars',
  'workers',
] as const;
