/**
 * The measured window of a fleet run: the live readers open, then --seconds of steady meetings,
 * read before and after: each process's CPU, Redis' INFO and AOF writes, Postgres' counters and
 * busiest statements, the bot hosts' counters, the webhooks received. Then, the fleet at its full
 * size: the peaks so far, memory, connections, and every segment published in the window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cleanups } from './cleanups.js';
import type { FleetUser } from './create-users.js';
import type { HostStats } from './host-protocol.js';
import type { ReaderFigures, Window } from './live-readers.js';
import type { FleetOptions } from './options.js';
import type { PeakSampler, Peaks } from './peak-sampler.js';
import {
  busiestStatements,
  commitLatencies,
  connectionsByState,
  type DatabaseCounters,
  databaseCounters,
  type Statement,
  segmentsWritten,
} from './postgres-readings.js';
import { writtenBytes } from './process-stats.js';
import type { Ramp } from './ramp-meetings.js';
import { clientsByUser } from './redis-readings.js';
import type { RunLog } from './run-log.js';
import { readHostStats } from './services.js';
import type { Services } from './start-services.js';
import type { Stores } from './start-stores.js';
import {
  type ConnectionCount,
  connectionsNow,
  cpuOf,
  type Memory,
  memoryOf,
  type WatchedProcess,
  watchedProcesses,
} from './watched-processes.js';
import { closeWindowReaders, openWindowReaders } from './window-readers.js';

export interface Measured {
  window: Window;
  windowSeconds: number;
  readers: { sse: number; ws: number };
  sse: ReaderFigures[];
  ws: ReaderFigures[];
  processes: WatchedProcess[];
  cpuBefore: number[];
  cpuAfter: number[];
  memory: Memory[];
  connectionsOf: ConnectionCount;
  infoBefore: Record<string, string>;
  infoAfter: Record<string, string>;
  redisWrittenPerSecond: number;
  clientsByUser: { bots: number; service: number };
  pgBefore: DatabaseCounters;
  pgAfter: DatabaseCounters;
  pgByState: Array<{ state: string | null; n: number }>;
  statements: Statement[];
  hostsBefore: HostStats[];
  hostsAfter: HostStats[];
  webhooksInWindow: number;
  peaksAtWindow: Peaks;
  /** Final segments published in the window: publish → row written, ms. */
  commit: number[];
  segmentsInWindow: number;
}

export async function measureWindow(
  run: {
    options: FleetOptions;
    stores: Stores;
    services: Services;
    users: FleetUser[];
    ramp: Ramp;
    sampler: PeakSampler;
  },
  cleanups: Cleanups,
  log: RunLog,
): Promise<Measured> {
  const { options, stores, services, sampler } = run;
  const { db, redisPid } = stores;
  const { receiver, workers } = services;
  const window: Window = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };
  receiver.window = window;
  const readers = openWindowReaders(options, services.apis, run.users, run.ramp.live, window, cleanups);
  await sleep(3000);

  const processes = watchedProcesses(services, stores);
  const cpuBefore = cpuOf(processes);
  const infoBefore = await stores.redisInfo();
  const redisWrittenBefore = writtenBytes(redisPid);
  const pgBefore = await databaseCounters(db);
  const hostsBefore = readHostStats(workers);
  const webhooksBefore = receiver.figures.received;
  await db.raw('SELECT pg_stat_statements_reset()');
  window.from = Date.now();
  log(
    `measuring ${options.seconds} s with ${readers.sse.length} SSE and ${readers.ws.length} WebSocket readers…`,
  );
  await sleep(options.seconds * 1000);
  window.to = Date.now();
  const windowSeconds = (window.to - window.from) / 1000;
  const cpuAfter = cpuOf(processes);
  const infoAfter = await stores.redisInfo();
  const redisWrittenPerSecond = (writtenBytes(redisPid) - redisWrittenBefore) / windowSeconds;
  const pgAfter = await databaseCounters(db);
  const webhooksInWindow = receiver.figures.received - webhooksBefore;
  const statements = await busiestStatements(db);
  // The hosts write their counters every few seconds: wait for a reading from after the window.
  await sleep(3000);
  const hostsAfter = readHostStats(workers);
  const peaksAtWindow = { ...sampler.peaks };
  await sampler.sample();

  const memory = memoryOf(processes);
  const connectionsOf = connectionsNow(processes, [stores.redis.port, stores.postgres.port]);
  const clients = await clientsByUser(stores.control, services.prefix);
  const pgByState = await connectionsByState(db);
  const commit = await commitLatencies(db, window);
  const segmentsInWindow = await segmentsWritten(db, window);
  closeWindowReaders(readers);
  return {
    window,
    windowSeconds,
    readers: { sse: readers.sse.length, ws: readers.ws.length },
    sse: readers.sse.map((reader) => reader.figures),
    ws: readers.ws.map((reader) => reader.figures),
    processes,
    cpuBefore,
    cpuAfter,
    memory,
    connectionsOf,
    infoBefore,
    infoAfter,
    redisWrittenPerSecond,
    clientsByUser: clients,
    pgBefore,
    pgAfter,
    pgByState,
    statements,
    hostsBefore,
    hostsAfter,
    webhooksInWindow,
    peaksAtWindow,
    commit,
    segmentsInWindow,
  };
}
