/**
 * The fleet bench's command line (bench/fleet.ts), every option checked, and what follows from
 * them: each worker's BOT_SLOTS, the ramp's timeout, the simulated bots' behaviour.
 */
import { parseArgs } from 'node:util';
import { type BotBehaviour, DEFAULT_BEHAVIOUR } from './host-protocol.js';

export interface FleetOptions {
  meetings: number;
  workers: number;
  /** API processes. */
  apis: number;
  /** The measured window's length. */
  seconds: number;
  /** Live readers: half of them (rounded up) on SSE, the rest on WebSockets. */
  readers: number;
  /** Meetings each WebSocket reader subscribes to. */
  wsMeetings: number;
  /** Meetings per user (each user's max_concurrent_bots), at most 10,000. */
  perUser: number;
  /** Each service process's DATABASE_POOL_MAX. */
  pool: number;
  webhooks: boolean;
  recording: boolean;
  /** POST /bots (and, at the end, DELETE /bots) requests in flight at once. */
  postConcurrency: number;
  /** How long the meetings may take to be in their calls (or settled otherwise), s. */
  rampTimeoutS: number;
  behaviour: BotBehaviour;
  /** Each worker's BOT_SLOTS: its share of the meetings and a tenth more. */
  slots: number;
  /** Every service process writes a V8 CPU profile as it exits. */
  cpuProf: boolean;
  /** The stores' settings, checked as they start: a bad one fails the run, which then cleans up. */
  stores(): StoreSettings;
}

export interface StoreSettings {
  redisMaxclients: number;
  /** --redis-maxclients as given, for the log. */
  redisMaxclientsAsGiven: string;
  redisAof: boolean;
  pgMaxConnections: number;
}

/** shared/infra/bot-settings.ts caps BOT_SLOTS at 1000 a worker. */
const MAX_SLOTS = 1000;

/** Reads process.argv; throws, naming the option, on a value out of range. */
export function parseFleetOptions(): FleetOptions {
  const { values } = parseArgs({
    options: {
      meetings: { type: 'string', default: '20' },
      workers: { type: 'string', default: '2' },
      apis: { type: 'string', default: '1' },
      seconds: { type: 'string', default: '60' },
      readers: { type: 'string', default: '10' },
      'ws-meetings': { type: 'string', default: '50' },
      webhooks: { type: 'string', default: 'on' },
      recording: { type: 'string', default: 'on' },
      audio: { type: 'string', default: 'on' },
      'revision-ms': { type: 'string', default: String(DEFAULT_BEHAVIOUR.revisionMs) },
      'meeting-seconds': { type: 'string', default: '0' },
      'meetings-per-user': { type: 'string', default: '1000' },
      pool: { type: 'string', default: '10' },
      'pg-max-connections': { type: 'string', default: '100' },
      'redis-maxclients': { type: 'string', default: '10000' },
      'redis-aof': { type: 'string', default: 'on' },
      'post-concurrency': { type: 'string', default: '16' },
      'ramp-timeout': { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });

  function count(name: keyof typeof values, min: number): number {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number ≥ ${min}`);
    return value;
  }
  function onOff(name: keyof typeof values): boolean {
    if (values[name] !== 'on' && values[name] !== 'off') throw new Error(`--${name} is on or off`);
    return values[name] === 'on';
  }

  const meetings = count('meetings', 1);
  const workers = count('workers', 1);
  const apis = count('apis', 1);
  const seconds = count('seconds', 5);
  const readers = count('readers', 0);
  const wsMeetings = count('ws-meetings', 1);
  const perUser = Math.min(10_000, count('meetings-per-user', 1));
  const pool = count('pool', 1);
  const webhooks = onOff('webhooks');
  const recording = onOff('recording');
  const postConcurrency = count('post-concurrency', 1);
  const rampTimeoutS = values['ramp-timeout']
    ? count('ramp-timeout', 10)
    : Math.max(180, Math.ceil(meetings / 10));
  const behaviour: BotBehaviour = {
    ...DEFAULT_BEHAVIOUR,
    revisionMs: count('revision-ms', 100),
    audio: onOff('audio'),
    meetingSeconds: count('meeting-seconds', 0),
  };
  const perWorker = Math.ceil(meetings / workers);
  if (perWorker > MAX_SLOTS) {
    throw new Error(
      `${meetings} meetings on ${workers} workers need ${perWorker} bots a worker, but BOT_SLOTS is at most ` +
        `${MAX_SLOTS} (shared/infra/bot-settings.ts): use --workers ${Math.ceil(meetings / MAX_SLOTS)} or more`,
    );
  }
  return {
    meetings,
    workers,
    apis,
    seconds,
    readers,
    wsMeetings,
    perUser,
    pool,
    webhooks,
    recording,
    postConcurrency,
    rampTimeoutS,
    behaviour,
    slots: Math.min(MAX_SLOTS, Math.ceil(perWorker * 1.1) + 1),
    cpuProf: values['cpu-prof'] ?? false,
    stores: () => ({
      redisMaxclients: count('redis-maxclients', 100),
      redisMaxclientsAsGiven: String(values['redis-maxclients']),
      redisAof: onOff('redis-aof'),
      pgMaxConnections: count('pg-max-connections', 10),
    }),
  };
}
