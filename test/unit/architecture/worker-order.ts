/**
 * The parts of worker/, lowest first: a part is a folder, or a file at worker/'s root. Each imports
 * only itself and the parts before it, so every arrow between them points down this list
 * (imports.test.ts enforces it; `npm run graph` draws it in docs/worker-imports.md). Why this order:
 * - runtime: bots as containers on a Docker engine behind the BotRuntime seam: the container's spec
 *   and files, each bot's Redis credential, the seccomp profile, the engine's own facts. It knows
 *   no meeting's story, only shared/'s contract and infra.
 * - accounts: the bot accounts signed-in bots use: the one a launch takes, one taken out of the pool
 *   once several users met a sign-in screen with it, the check of their keys at start-up.
 * - events: where the worker's changes are told (domain-events.ts: the webhook outbox, and the
 *   account expiry above, in the change's transaction), and failing a meeting on the worker's behalf.
 * - retries: a bot's end applied to its meeting (bot-outcome.ts), and when a refused bot is launched
 *   again (join-retry-policy.ts); both readers of a bot's final event come here.
 * - ingest: the bots' streams read as one consumer group and written to Postgres; a final event
 *   goes to retries.
 * - fleet: the bots this worker runs: its slots (bot-fleet.ts, bot-slots.ts), each bot's session and
 *   credential from launch to sweep, a container's exit, lagging bots, the heartbeat that shows the
 *   slots to the other workers. Sessions are swept once ingest has read their streams.
 * - metrics: /metrics of the fleet, the runtime and the queues, and Redis's memory.
 * - worker-deps.ts: the handles the jobs and sweeps share (one of each per process), typed here.
 * - jobs: one file per job: launching a bot (over accounts, fleet sessions, events and the runtime),
 *   stopping one.
 * - queues: the BullMQ workers that run the jobs (launches gated by slots and placement, stops,
 *   webhook deliveries) and validate each payload again.
 * - calendars: the calendar feed poller, whose occurrences become scheduled bots.
 * - sweeps: what runs every interval: the reconciler (which also re-adopts this worker's bots at
 *   start-up), relaunching a lost host's meetings, the recording and command-stream sweeps.
 * - webhooks: webhook delivery in the worker, over the webhook queue worker.
 * - create-worker.ts: builds every part and starts and stops them in order.
 * - main.ts: the process: config, start-up checks, signals.
 */
export const WORKER_ORDER = [
  'runtime',
  'accounts',
  'events',
  'retries',
  'ingest',
  'fleet',
  'metrics',
  'worker-deps.ts',
  'jobs',
  'queues',
  'calendars',
  'sweeps',
  'webhooks',
  'create-worker.ts',
  'main.ts',
] as const;
