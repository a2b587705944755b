import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../shared/infra/logger.js';
import { createMetricsRegistry } from '../../../shared/infra/metrics.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import { serveWorkerMetrics, WorkerMetrics } from '../../../worker/metrics/worker-metrics.js';
import { DockerRuntime } from '../../../worker/runtime/docker-runtime.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { FakeBots } from '../../support/fake-bot.js';

// Debian's Prometheus scrapes the API and a worker's metrics server as an operator's would, and the
// series are read back through Prometheus' own HTTP API.
let api: TestApi;
let user: TestUser;
let bots: FakeBots;
let workerServer: Server;
let prometheus: ChildProcess;
let prometheusUrl: string;
let dataDir: string;
let workerMetricsUrl: string;
const METRICS_TOKEN = 'metrics-token-for-tests';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(expression: string): Promise<Series[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  const body = (await response.json()) as { status: string; data: { result: Series[] } };
  expect(body.status).toBe('success');
  return body.data.result;
}

const total = (series: Series[]) => series.reduce((sum, one) => sum + Number(one.value[1]), 0);

beforeAll(async () => {
  api = await startTestApi({ env: { METRICS_TOKEN } });
  user = await api.createUser();
  // A worker's metrics as its main wires them: ingestion reports to them, Docker answers usage.
  const log = createLogger('metrics-test', 'silent');
  const metrics = new WorkerMetrics(createMetricsRegistry('worker', { worker: 'metrics-test' }), {
    fleet: new BotFleet(4),
    runtime: new DockerRuntime(new Docker(), log),
    db: api.database.db,
    workerId: 'metrics-test',
    log,
  });
  bots = new FakeBots(api, { onSegmentsCommitted: (written) => metrics.segmentsWritten(written) });
  const workerPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${workerPort}/metrics`;
  workerServer = await serveWorkerMetrics(metrics.registry, {
    host: '127.0.0.1',
    port: workerPort,
    token: METRICS_TOKEN,
  });

  dataDir = mkdtempSync(join(tmpdir(), 'meetbot-prometheus-'));
  writeFileSync(
    join(dataDir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      '  - job_name: meetbot',
      '    authorization:',
      `      credentials: ${METRICS_TOKEN}`,
      '    static_configs:',
      `      - targets: ['${new URL(api.baseUrl).host}', '127.0.0.1:${workerPort}']`,
    ].join('\n'),
  );
  const prometheusPort = await freePort();
  prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${join(dataDir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dataDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${prometheusPort}`,
    ],
    { stdio: 'ignore' },
  );
  await new Promise<void>((resolve, reject) => {
    prometheus.once('spawn', resolve);
    prometheus.once('error', (error) =>
      reject(new Error(`could not start prometheus (apt-get install prometheus): ${error.message}`)),
    );
  });
}, 60_000);

afterAll(async () => {
  prometheus?.kill('SIGTERM');
  await new Promise((resolve) => (workerServer ? workerServer.close(resolve) : resolve(undefined)));
  await bots?.close();
  await api?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('metrics a real Prometheus scrapes', () => {
  it('refuses a scrape without the token when METRICS_TOKEN is set', async () => {
    const response = await fetch(`${api.baseUrl}/metrics`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'Unauthorized' });
  });

  it('sees both targets up, request latency by route and status, queue depths and ingestion', async () => {
    await expect
      .poll(async () => (await query('up{job="meetbot"} == 1')).length, { timeout: 30_000 })
      .toBe(2);

    // Traffic to measure: a created bot (a queued launch), reads, a 404, and two committed segments.
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('met-rics-abc'),
    });
    expect(created.status).toBe(201);
    for (let index = 0; index < 3; index += 1) await api.request('GET', '/meetings', { key: user.key });
    await api.request('GET', '/meetings/999999', { key: user.key });
    const { meetingId, sessionId } = await bots.startMeeting(user, 'met-rics-seg');
    await bots.segment(meetingId, sessionId, { id: 'one', start: 1, text: 'first words' });
    await bots.segment(meetingId, sessionId, { id: 'two', start: 3, text: 'second words' });

    await expect
      .poll(
        async () =>
          total(await query('meetbot_http_request_duration_seconds_count{route="/meetings",status="200"}')),
        { timeout: 30_000 },
      )
      .toBe(3);
    expect(
      await query(
        'meetbot_http_request_duration_seconds_count{route="/meetings/:id",status="404",service="api"}',
      ),
    ).toHaveLength(1);
    await expect
      .poll(
        async () =>
          total(await query('meetbot_queue_jobs{queue="bot-launches",state=~"waiting|prioritized"}')),
        {
          timeout: 30_000,
        },
      )
      .toBeGreaterThanOrEqual(1);
    await expect
      .poll(async () => total(await query('meetbot_segments_committed_total{service="worker"}')), {
        timeout: 30_000,
      })
      .toBe(2);
    expect(total(await query('meetbot_ingest_lag_seconds_count'))).toBe(2);
    expect(total(await query('meetbot_bot_slots{kind="total"}'))).toBe(4);
    expect(await query('meetbot_process_resident_memory_bytes')).toHaveLength(2);
  });

  it('has every series the shipped Grafana dashboard charts', async () => {
    const dashboard = readFileSync(
      new URL('../../../docker/grafana-dashboard.json', import.meta.url),
      'utf8',
    );
    const charted = new Set(
      [...dashboard.matchAll(/meetbot_[a-z0-9_]+/g)].map(([name]) =>
        name.replace(/_(bucket|count|sum)$/, ''),
      ),
    );
    expect(charted.size).toBeGreaterThan(10);
    const headers = { Authorization: `Bearer ${METRICS_TOKEN}` };
    const exported = [
      await (await fetch(`${api.baseUrl}/metrics`, { headers })).text(),
      await (await fetch(workerMetricsUrl, { headers })).text(),
    ].join('\n');
    const missing = [...charted].filter((name) => !exported.includes(`# TYPE ${name} `));
    expect(missing).toEqual([]);
  });
});
