/**
 * A fleet run's figures as a Markdown table (the measures, then one row per process), followed by
 * the most frequent log messages, dead letters, reader errors and the bots' last Redis error.
 */
import { loadavg } from 'node:os';
import { spreadText } from './figures.js';
import type { FleetResult } from './fleet-result.js';

const out = (line = '') => process.stdout.write(`${line}\n`);
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

export function printResultTable(result: FleetResult): void {
  const { options, ramp, redis, postgres, stop, errors } = result;
  const peaks = redis.peaks;
  const activeCount = ramp.active;
  out();
  out(
    `## Fleet: ${options.meetings} meetings, ${options.workers} workers, ${options.apis} API, ${options.seconds} s measured (load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')})`,
  );
  out();
  out('| measure | figure |');
  out('|---|---|');
  out(
    `| meetings active / asked | ${activeCount} / ${options.meetings} (POST /bots failures: ${JSON.stringify(ramp.postFailures)}) |`,
  );
  out(`| POST /bots p50 / p95 / p99 / max | ${spreadText(ramp.post)} |`);
  out(
    `| first POST → all active | ${fixed(ramp.allActiveSeconds)} s (POSTs took ${fixed(ramp.postSeconds)} s) |`,
  );
  const per = result.perMeetingPerSecond;
  out(
    `| published per meeting per second | ${fixed(per.segmentsPartial, 2)} revisions, ${fixed(per.segmentsFinal, 2)} finals, ${fixed(per.participants, 2)} participant events, ${fixed(per.recordingChunks, 2)} recording chunks, ${fixed(per.audioChunks, 2)} audio chunks |`,
  );
  out(
    `| **segment commit** (final: publish → row written) p50 / p95 / p99 / max | **${spreadText(result.commit)}** |`,
  );
  out(`| revision commit (WebSocket's updated_at) | ${spreadText(result.ws.revisionCommit)} |`);
  out(`| bot's own append (publish → XADD answered) p95 | ${fixed(result.botAppendP95Ms, 0)} ms |`);
  out(`| SSE delivery (publish → received) | ${spreadText(result.sse)} |`);
  out(`| WebSocket delivery (publish → received) | ${spreadText(result.ws)} |`);
  out(
    `| webhooks received (in window /s), by type | ${result.webhooks.received} (${fixed(result.webhooks.perSecondInWindow)}/s) ${JSON.stringify(result.webhooks.byType)}; duplicates ${result.webhooks.duplicates}; deliveries ${JSON.stringify(result.webhooks.deliveries)}, tried more than once ${JSON.stringify(result.webhooks.retried)}; slowest ${result.webhooks.slowest.map((row) => `${row.type} ${fixed(row.seconds)} s`).join(', ')} |`,
  );
  out(`| webhook lag (event written → received) | ${spreadText(result.webhooks.lag)} |`);
  out(`| webhook segment lag (publish → received) | ${spreadText(result.webhooks.segmentLag)} |`);
  out(
    `| Redis | ${redis.clientsAtEnd} clients (bots ${redis.clientsByUser.bots}, service ${redis.clientsByUser.service}), peak ${peaks.redisClients}, blocked ${peaks.redisBlocked}, rejected ${peaks.redisRejected}; ${peaks.aclUsers} bot ACL users; ${fixed(redis.opsPerSecond, 0)} ops/s, ${fixed(redis.netInMiBPerSecond, 2)} MiB/s in, writes ${fixed(redis.writtenBytesPerSecond / 2 ** 20, 2)} MiB/s (AOF); ${fixed(redis.usedMemoryMiB, 1)} MiB used |`,
  );
  out(
    `| Redis's busiest commands (share of its core, calls/s, µs/call) | ${redis.busiest.map((row) => `${row.command} ${fixed(row.shareOfCore * 100, 1)} % (${fixed(row.perSecond, 0)}/s, ${fixed(row.usecPerCall, 0)} µs)`).join('; ')} |`,
  );
  out(
    `| Postgres | ${peaks.pgConnections} connections at peak of ${options.pgMaxConnections} (${JSON.stringify(postgres.connectionsByState)} now); ${fixed(postgres.commitsPerSecond, 0)} commits/s, ${fixed(postgres.insertsPerSecond, 0)} inserts/s, ${fixed(postgres.updatesPerSecond, 0)} updates/s |`,
  );
  out(
    `| Postgres' busiest statements (share of a core, calls/s, mean ms) | ${postgres.busiest
      .slice(0, 5)
      .map(
        (row) =>
          `\`${row.query.slice(0, 70)}…\` ${fixed(row.shareOfCore * 100, 1)} % (${fixed(row.perSecond, 0)}/s, ${fixed(row.meanMs, 2)} ms)`,
      )
      .join('; ')} |`,
  );
  out(
    `| queues at peak (waiting + active + delayed) | launches ${peaks.launchQueue}, control ${peaks.controlQueue}, webhooks ${peaks.webhookQueue}; pending deliveries ${peaks.pendingDeliveries} |`,
  );
  out(
    `| stop (DELETE /bots → every bot gone) | ${fixed(stop.seconds)} s, ${stop.botsLeft} bot users left; failures ${JSON.stringify(stop.failures)}; webhooks all delivered ${fixed(stop.webhooksDrainedSeconds)} s after the first DELETE |`,
  );
  out(`| dead letters | ${errors.deadLetters} |`);
  out(
    `| errors | worker log ${errors.workerLogErrors} errors / ${errors.workerLogWarnings} warnings, API log ${errors.apiLogErrors} / ${errors.apiLogWarnings}; bot appends failed ${errors.botAppendFailures}, bot Redis errors ${errors.botRedisErrors}, audio dropped ${errors.audioDropped}, bots still running after the stop ${errors.botsStillRunning}, bot exit codes ${JSON.stringify(errors.botExits)}; readers ${result.sse.errors + result.ws.errors}; meetings at the end ${JSON.stringify(errors.meetingsByStatusAtEnd)} |`,
  );
  out();
  out(
    '| process | CPU (cores) | CPU ms per meeting-second | memory MiB now / peak | Redis conns | Postgres conns |',
  );
  out('|---|---|---|---|---|---|');
  const perMeeting = (cores: number) => fixed((cores * 1000) / Math.max(1, activeCount), 2);
  for (const row of result.processes) {
    const memoryText = row.pss
      ? `${fixed(row.rssMiB, 0)} (PSS, ${row.pids} processes)`
      : `${fixed(row.rssMiB, 0)} / ${fixed(row.peakMiB, 0)}`;
    out(
      `| ${row.name} | ${fixed(row.cores, 2)} | ${perMeeting(row.cores)} | ${memoryText} | ${row.redisConnections || '–'} | ${row.postgresConnections || '–'} |`,
    );
  }
  out(
    `| **the service** (API, workers, Redis, Postgres) | **${fixed(result.serviceCores, 2)}** | **${perMeeting(result.serviceCores)}** | | | |`,
  );
  out();
  for (const { message, count: n } of errors.topLogMessages) out(`log: ${n}× ${message}`);
  for (const letter of errors.deadLetterSample) out(`dead letter: ${letter}`);
  for (const error of errors.readerErrors.slice(0, 5)) out(`reader: ${error}`);
  if (errors.lastBotRedisError) out(`bot Redis error: ${errors.lastBotRedisError}`);
  out();
}
