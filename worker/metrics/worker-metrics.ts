import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { BOT_ACCOUNT_STATUSES, countBotAccountsByStatus } from '../../shared/accounts/bot-accounts-store.js';
import { NON_TERMINAL_STATUSES } from '../../shared/contract/meeting-status.js';
import { PLATFORMS } from '../../shared/contract/platforms.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { METRIC_PREFIX, mayScrape } from '../../shared/infra/metrics.js';
import type { DeliveryAttemptOutcome } from '../../shared/webhooks/deps.js';
import type { BotFleet } from '../fleet/bot-fleet.js';
import type { BotLagWatch } from '../fleet/bot-lag-watch.js';
import type { BotRuntime } from '../runtime/bot-runtime.js';

/** Where ingestion and delivery report what they did (a Prometheus registry in a worker). */
export interface IngestMetrics {
  segmentsCommitted: Counter;
  /** Seconds from the end of what was said to its commit, for final segments. */
  ingestLag: Histogram;
}

/**
 * A worker's series. Counted as things happen: launch durations, committed segments and their lag,
 * webhook delivery outcomes. Read at each scrape: bot slots used, this worker's meetings by status,
 * and each running bot's memory and CPU as the Docker engine counts them.
 */
export class WorkerMetrics implements IngestMetrics {
  readonly launchDuration: Histogram;
  readonly segmentsCommitted: Counter;
  readonly ingestLag: Histogram;
  readonly webhookDeliveries: Counter;
  readonly relaunches: Counter;
  /** Launches queued again after a refusal: join retries and sign-in fallbacks. */
  readonly joinRetries: Counter;
  /** From a scheduled bot's `join_at` to its claim (how late it launched). */
  readonly scheduledLaunchDelay: Histogram;
  /** Calendar feed polls by outcome (ok, fetch_failed, invalid_feed, over_budget, failed). */
  readonly calendarFeedPolls: Counter;
  /** Bots calendar feeds scheduled, moved and cancelled. */
  readonly calendarFeedBotChanges: Counter;
  /** The last CPU sample of each bot container, for a rate between two scrapes. */
  private readonly lastCpu = new Map<string, { cpu: number; system: number }>();

  constructor(
    readonly registry: Registry,
    deps: {
      fleet: BotFleet;
      runtime: BotRuntime;
      db: Knex;
      workerId: string;
      log: Logger;
      lagWatch?: BotLagWatch;
    },
  ) {
    const registers = [registry];
    this.launchDuration = new Histogram({
      name: `${METRIC_PREFIX}bot_launch_duration_seconds`,
      help: 'From taking a launch to its bot container running',
      buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
    this.segmentsCommitted = new Counter({
      name: `${METRIC_PREFIX}segments_committed_total`,
      help: 'Transcript segment writes committed to Postgres by this worker',
      registers,
    });
    this.ingestLag = new Histogram({
      name: `${METRIC_PREFIX}ingest_lag_seconds`,
      help: 'From the end of a final segment (its absolute end time) to its commit',
      buckets: [0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60],
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: `${METRIC_PREFIX}webhook_delivery_attempts_total`,
      help: 'Webhook delivery attempts by outcome (delivered, retrying, given_up)',
      labelNames: ['outcome'],
      registers,
    });
    this.joinRetries = new Counter({
      name: `${METRIC_PREFIX}join_retries_total`,
      help: 'Bots launched again after a refusal, by platform, reason and kind (retry: after a backoff; account_fallback: signed in after sign_in_required)',
      labelNames: ['platform', 'reason', 'kind'],
      registers,
    });
    this.relaunches = new Counter({
      name: `${METRIC_PREFIX}relaunches_total`,
      help: 'Meetings of lost hosts this worker relaunched elsewhere, or gave up on, by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.scheduledLaunchDelay = new Histogram({
      name: `${METRIC_PREFIX}scheduled_launch_delay_seconds`,
      help: "From a scheduled bot's join_at to this worker taking its launch (how late it launched)",
      buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    });
    this.calendarFeedPolls = new Counter({
      name: `${METRIC_PREFIX}calendar_feed_polls_total`,
      help: 'Calendar feed polls this worker made, by outcome (ok, fetch_failed, invalid_feed, over_budget, failed)',
      labelNames: ['outcome'],
      registers,
    });
    this.calendarFeedBotChanges = new Counter({
      name: `${METRIC_PREFIX}calendar_feed_bot_changes_total`,
      help: "Scheduled bots this worker's calendar feed polls changed, by change (scheduled, moved, cancelled)",
      labelNames: ['change'],
      registers,
    });
    new Gauge({
      name: `${METRIC_PREFIX}scheduled_bots_waiting`,
      help: 'Scheduled bots (all users) waiting for their join_at, not yet launched',
      registers,
      async collect() {
        const rows = (await deps
          .db('meetings')
          .where('status', 'requested')
          .whereNotNull('join_at')
          .whereNull('launch_session_id')
          .count({ count: '*' })
          .catch((error: unknown) => {
            deps.log.warn({ err: error }, 'could not count scheduled bots for metrics');
            return [];
          })) as Array<{ count: number | string }>;
        this.set(Number(rows[0]?.count ?? 0));
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}bot_accounts`,
      help: 'Bot accounts (all workers) by platform and status: active (in the pool), expired, disabled',
      labelNames: ['platform', 'status'],
      registers,
      async collect() {
        const rows = await countBotAccountsByStatus(deps.db).catch((error: unknown) => {
          deps.log.warn({ err: error }, 'could not count bot accounts for metrics');
          return undefined;
        });
        if (!rows) return;
        for (const platform of PLATFORMS) {
          for (const status of BOT_ACCOUNT_STATUSES) {
            const row = rows.find((entry) => entry.platform === platform && entry.status === status);
            this.set({ platform, status }, row?.count ?? 0);
          }
        }
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}bot_slots`,
      help: 'Bot slots of this worker, used and total',
      labelNames: ['kind'],
      registers,
      collect() {
        this.set({ kind: 'used' }, deps.fleet.used);
        this.set({ kind: 'total' }, deps.fleet.slots);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}bot_transcription_lag_seconds`,
      help: "How far each running bot's transcription is behind its meeting, as the bot last said",
      labelNames: ['meeting_id'],
      registers,
      collect() {
        this.reset();
        for (const lag of deps.lagWatch?.lags() ?? [])
          this.set({ meeting_id: String(lag.meetingId) }, lag.lagSeconds);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}bots_lagging`,
      help: 'Running bots of this worker whose transcription is behind (no launches are taken meanwhile)',
      registers,
      collect() {
        this.set(deps.fleet.laggingBots);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}bots_settling`,
      help: 'Running bots of this worker still settling in (starting, joining, video measures not done yet); no launches are taken meanwhile',
      registers,
      collect() {
        this.set(deps.fleet.settlingBots);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}worker_meetings`,
      help: "This worker's meetings that still have a bot, by status",
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        const rows = (await deps
          .db('meetings')
          .where({ worker_id: deps.workerId })
          .whereIn('status', NON_TERMINAL_STATUSES)
          .groupBy('status')
          .select('status')
          .count({ count: '*' })
          .catch((error: unknown) => {
            deps.log.warn({ err: error }, 'could not count meetings for metrics');
            return [];
          })) as Array<{ status: string; count: number | string }>;
        for (const status of NON_TERMINAL_STATUSES) {
          this.set({ status }, Number(rows.find((row) => row.status === status)?.count ?? 0));
        }
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}worker_heartbeat_age_seconds`,
      help: 'Seconds since each known worker last recorded a heartbeat, as this worker reads them (a lost host keeps growing)',
      labelNames: ['peer', 'peer_docker_host'],
      registers,
      async collect() {
        this.reset();
        const rows = (await deps
          .db('workers')
          .select('worker_id', 'docker_host', deps.db.raw('extract(epoch from now() - heartbeat_at) AS age'))
          .catch((error: unknown) => {
            deps.log.warn({ err: error }, 'could not read heartbeats for metrics');
            return [];
          })) as Array<{ worker_id: string; docker_host: string; age: number | string }>;
        for (const row of rows) {
          this.set({ peer: row.worker_id, peer_docker_host: row.docker_host }, Math.max(0, Number(row.age)));
        }
      },
    });
    const memory = new Gauge({
      name: `${METRIC_PREFIX}bot_memory_bytes`,
      help: "A running bot's memory as docker stats shows it (cgroup usage less inactive file), or its working set from Kubernetes' metrics API",
      labelNames: ['meeting_id'],
      registers,
    });
    const lastCpu = this.lastCpu;
    new Gauge({
      name: `${METRIC_PREFIX}bot_cpu_cores`,
      help: "A running bot's CPU use since the previous scrape, in cores",
      labelNames: ['meeting_id'],
      registers,
      async collect() {
        this.reset();
        memory.reset();
        const bots = deps.fleet.list();
        const seen = new Set<string>();
        await Promise.all(
          bots.map(async (bot) => {
            const usage = await deps.runtime.usage(bot.containerId).catch(() => undefined);
            if (!usage) return;
            const labels = { meeting_id: String(bot.meetingId) };
            seen.add(bot.containerId);
            memory.set(labels, usage.memoryBytes);
            if (usage.cpuCores !== undefined) {
              this.set(labels, usage.cpuCores);
              return;
            }
            const previous = lastCpu.get(bot.containerId);
            lastCpu.set(bot.containerId, { cpu: usage.cpuNanos, system: usage.systemCpuNanos });
            const systemDelta = usage.systemCpuNanos - (previous?.system ?? 0);
            if (previous && systemDelta > 0) {
              this.set(labels, ((usage.cpuNanos - previous.cpu) / systemDelta) * usage.onlineCpus);
            }
          }),
        );
        for (const id of lastCpu.keys()) if (!seen.has(id)) lastCpu.delete(id);
      },
    });
  }

  /** Counts a batch of committed segments and the lag of its final ones. */
  segmentsWritten(segments: ReadonlyArray<{ final: boolean; absoluteEndTime: Date }>): void {
    if (segments.length === 0) return;
    this.segmentsCommitted.inc(segments.length);
    const now = Date.now();
    for (const segment of segments) {
      if (segment.final)
        this.ingestLag.observe(Math.max(0, (now - segment.absoluteEndTime.getTime()) / 1000));
    }
  }

  webhookOutcome(outcome: DeliveryAttemptOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }
}

/** Serves GET /metrics (and nothing else) for Prometheus to scrape this worker. */
export async function serveWorkerMetrics(
  registry: Registry,
  options: { host: string; port: number; token: string | undefined },
): Promise<Server> {
  const server = createServer((request, response) => {
    const json = (status: number, error: string) => {
      response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ error }));
    };
    if (request.url !== '/metrics') return json(404, 'Not found');
    if (request.method !== 'GET') return json(405, 'Method not allowed');
    if (!mayScrape(request.headers.authorization, options.token)) return json(401, 'Unauthorized');
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'Content-Type': registry.contentType });
        response.end(text);
      },
      () => json(500, 'Internal server error'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
