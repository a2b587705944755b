/**
 * A fleet run's figures, as the JSON line prints them (and the table reads them): the ramp, what
 * the bots published per meeting and second, the commit and delivery latencies, the webhooks, each
 * process's CPU, memory and connections, Redis' and Postgres' load, the stop, and every error seen.
 */
import { loadavg } from 'node:os';
import type { EndState } from './end-state.js';
import { busiestCommands, commandStats, spread } from './figures.js';
import type { HostStats } from './host-protocol.js';
import type { ReaderFigures } from './live-readers.js';
import type { Measured } from './measure-window.js';
import type { FleetOptions } from './options.js';
import type { Ramp } from './ramp-meetings.js';
import type { Services } from './start-services.js';
import type { Stores } from './start-stores.js';
import type { Stop } from './stop-and-drain.js';

export interface FleetRun {
  options: FleetOptions;
  stores: Stores;
  services: Services;
  ramp: Ramp;
  measured: Measured;
  stop: Stop;
  end: EndState;
}

export type FleetResult = ReturnType<typeof fleetResult>;

/** Each process's share of the window: CPU in cores, memory, connections to Redis and Postgres. */
function processRows({ measured, stores }: FleetRun) {
  const { processes, cpuBefore, cpuAfter, memory, connectionsOf, windowSeconds } = measured;
  return processes.map((entry, index) => ({
    name: entry.name,
    pids: entry.pids().length,
    redisConnections: connectionsOf(entry.pids(), stores.redis.port),
    postgresConnections: connectionsOf(entry.pids(), stores.postgres.port),
    cores: (cpuAfter[index]! - cpuBefore[index]!) / windowSeconds,
    rssMiB: memory[index]!.rss,
    peakMiB: memory[index]!.peak,
    pss: memory[index]!.pss,
  }));
}

export function fleetResult(run: FleetRun) {
  const { options, stores, services, ramp, measured, stop, end } = run;
  const { apis, workers, receiver } = services;
  const { hostsBefore, hostsAfter, infoBefore, infoAfter, pgBefore, pgAfter, windowSeconds } = measured;
  const { sse, ws } = measured;
  const activeCount = ramp.activeCount;
  const sum = (stats: HostStats[], field: keyof HostStats) =>
    stats.reduce((total, host) => total + Number(host[field] ?? 0), 0);
  // Each host's counters over the time between its two readings (written every few seconds).
  const rate = (field: keyof HostStats) =>
    hostsAfter.reduce((total, after) => {
      const before = hostsBefore.find((host) => host.workerId === after.workerId);
      if (!before || after.at <= before.at) return total;
      return total + (Number(after[field]) - Number(before[field])) / ((after.at - before.at) / 1000);
    }, 0) / Math.max(1, activeCount);
  const appendP95 = Math.max(...hostsAfter.map((host) => host.segmentAppendMs.p95));
  const cores = processRows(run);
  // The service's own CPU: everything but the simulated bots and the bench's readers.
  const serviceCores = cores
    .filter((row) => !row.name.startsWith('bot host') && !row.name.startsWith('bench'))
    .reduce((total, row) => total + row.cores, 0);
  const redisCpu = busiestCommands(commandStats(infoBefore), commandStats(infoAfter), windowSeconds);
  const flat = <K extends 'delivery' | 'commit'>(list: ReaderFigures[], key: K) =>
    list.flatMap((figures) => figures[key]);
  const hostsEnd = end.hosts;
  return {
    bench: 'fleet',
    options: {
      meetings: options.meetings,
      workers: options.workers,
      apis: options.apis,
      seconds: options.seconds,
      readers: { sse: measured.readers.sse, ws: measured.readers.ws, wsMeetingsEach: options.wsMeetings },
      webhooks: options.webhooks,
      recording: options.recording,
      behaviour: options.behaviour,
      slots: options.slots,
      pool: options.pool,
      pgMaxConnections: Number(stores.pgMax),
      redisMaxclients: stores.settings.redisMaxclients,
      redisAof: stores.settings.redisAof ? 'on' : 'off',
    },
    loadAverage: loadavg(),
    ramp: {
      posted: ramp.meetings.length,
      postFailures: ramp.postFailures,
      post: spread(ramp.postMs),
      postSeconds: ramp.postSeconds,
      allActiveSeconds: ramp.allActiveSeconds,
      active: activeCount,
    },
    perMeetingPerSecond: {
      segmentsPartial: rate('segmentsPartial'),
      segmentsFinal: rate('segmentsFinal'),
      participants: rate('participants'),
      recordingChunks: rate('recordingChunks'),
      audioChunks: rate('audioChunks'),
    },
    serviceCores,
    serviceCpuMsPerMeetingSecond: (serviceCores * 1000) / Math.max(1, activeCount),
    commit: spread(measured.commit),
    segmentsWrittenInWindow: measured.segmentsInWindow,
    botAppendP95Ms: appendP95,
    sse: { ...spread(flat(sse, 'delivery')), errors: sse.reduce((n, f) => n + f.errors, 0) },
    ws: {
      ...spread(flat(ws, 'delivery')),
      revisionCommit: spread(flat(ws, 'commit')),
      errors: ws.reduce((n, f) => n + f.errors, 0),
    },
    webhooks: {
      received: receiver.figures.received,
      perSecondInWindow: measured.webhooksInWindow / windowSeconds,
      byType: receiver.figures.byType,
      duplicates: receiver.figures.duplicates,
      lag: spread(receiver.figures.lag),
      segmentLag: spread(receiver.figures.segmentLag),
      deliveries: Object.fromEntries(end.deliveries.map((row) => [row.status, row.n])),
      retried: end.retried.map((row) => ({ type: row.event_type, n: row.n, lastError: row.error })),
      slowest: end.slowest.map((row) => ({
        type: row.event_type,
        seconds: row.seconds,
        attempts: row.attempts,
      })),
    },
    processes: cores,
    redis: {
      clientsAtEnd: Number(infoAfter.connected_clients),
      clientsByUser: measured.clientsByUser,
      peaks: measured.peaksAtWindow,
      opsPerSecond:
        (Number(infoAfter.total_commands_processed) - Number(infoBefore.total_commands_processed)) /
        windowSeconds,
      netInMiBPerSecond:
        (Number(infoAfter.total_net_input_bytes) - Number(infoBefore.total_net_input_bytes)) /
        windowSeconds /
        2 ** 20,
      writtenBytesPerSecond: measured.redisWrittenPerSecond,
      usedMemoryMiB: Number(infoAfter.used_memory) / 2 ** 20,
      busiest: redisCpu,
    },
    postgres: {
      connectionsByState: Object.fromEntries(measured.pgByState.map((row) => [row.state ?? 'null', row.n])),
      commitsPerSecond: (Number(pgAfter.commits) - Number(pgBefore.commits)) / windowSeconds,
      insertsPerSecond: (Number(pgAfter.inserted) - Number(pgBefore.inserted)) / windowSeconds,
      updatesPerSecond: (Number(pgAfter.updated) - Number(pgBefore.updated)) / windowSeconds,
      busiest: measured.statements.map((row) => ({
        query: row.query.slice(0, 160),
        perSecond: row.calls / windowSeconds,
        meanMs: Number(row.mean_ms),
        shareOfCore: Number(row.total_ms) / 1000 / windowSeconds,
      })),
    },
    stop: {
      seconds: stop.seconds,
      botsLeft: stop.botsLeft,
      failures: stop.failures,
      webhooksDrainedSeconds: stop.webhooksDrainedSeconds,
    },
    errors: {
      meetingsByStatusAtEnd: end.byStatus,
      failedReasons: end.failedReasons,
      deadLetters: end.deadLetters.count,
      deadLetterSample: end.deadLetters.sample.map(([, fields]) =>
        fields.slice(0, 6).join(' ').slice(0, 300),
      ),
      workerLogErrors: workers.reduce((n, worker) => n + worker.logs.errors, 0),
      workerLogWarnings: workers.reduce((n, worker) => n + worker.logs.warnings, 0),
      apiLogErrors: apis.reduce((n, api) => n + api.logs.errors, 0),
      apiLogWarnings: apis.reduce((n, api) => n + api.logs.warnings, 0),
      topLogMessages: [...workers.map((worker) => worker.logs), ...apis.map((api) => api.logs)].flatMap(
        (tally) => tally.top(3),
      ),
      botAppendFailures: sum(hostsEnd, 'appendFailures'),
      botRedisErrors: sum(hostsEnd, 'redisErrors'),
      lastBotRedisError: hostsEnd.find((host) => host.lastRedisError)?.lastRedisError ?? null,
      audioDropped: sum(hostsEnd, 'audioDropped'),
      audioFailed: sum(hostsEnd, 'audioFailed'),
      botExits: hostsEnd.map((host) => host.exited),
      botsStillRunning: sum(hostsEnd, 'running'),
      readerErrors: [...sse, ...ws]
        .filter((figures) => figures.lastError)
        .map((figures) => figures.lastError),
    },
  };
}
