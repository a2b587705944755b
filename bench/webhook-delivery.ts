/**
 * Webhook delivery: commit → receiver latency and deliveries/s through the real path (delivery rows
 * written in the committing transaction, the announcement, the dispatcher, BullMQ jobs, signed
 * POSTs in order per meeting) to a receiver on 127.0.0.1. Each meeting goes through its five
 * status changes with live-style segment batches (one final segment per commit) in between.
 * With --backlog the worker starts only after everything was written: pure delivery throughput.
 *   npx tsx bench/webhook-delivery.ts [--meetings 100] [--segments 20] [--backlog]
 */
import { parseArgs } from 'node:util';
import { announceMeetingChanges } from '../shared/meetings/changes.js';
import { transitionMeeting } from '../shared/meetings/transitions.js';
import { upsertSegments } from '../shared/transcripts/store.js';
import { webhookOutbox } from '../shared/webhooks/record-events.js';
import { startTestApi } from '../test/support/api.js';
import { WebhookReceiver } from '../test/support/webhook-receiver.js';
import { startWebhookService, TEST_WEBHOOK_ENV } from '../test/support/webhook-service.js';

const { values } = parseArgs({
  options: {
    meetings: { type: 'string', default: '100' },
    segments: { type: 'string', default: '20' },
    backlog: { type: 'boolean', default: false },
  },
});
const meetingCount = Number(values.meetings);
const segmentsPerMeeting = Number(values.segments);

const api = await startTestApi({ env: { ...TEST_WEBHOOK_ENV, LOG_LEVEL: 'silent' } });
const receiver = await new WebhookReceiver().start();
const arrivals = new Map<string, number>();
receiver.respond = ({ json }) => {
  arrivals.set((json as { id: string }).id, Date.now());
  return 200;
};
let webhooks = values.backlog ? undefined : await startWebhookService(api);
const user = await api.createUser({ maxConcurrentBots: meetingCount });
await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: receiver.url } });

try {
  const meetingIds: number[] = [];
  for (let index = 0; index < meetingCount; index += 1) {
    const id = `ben-${String(index)
      .padStart(4, '0')
      .replace(/\d/g, (d) => 'abcdefghij'[Number(d)]!)}-bch`;
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: { platform: 'google_meet', native_meeting_id: id },
    });
    meetingIds.push(created.body.id);
  }
  const announce = (ids: number[]) => announceMeetingChanges(api.redis, api.prefix, ids);
  const started = Date.now();
  const steps: Array<() => Promise<void>> = [];
  for (const status of ['joining', 'awaiting_admission', 'active'] as const) {
    steps.push(async () => {
      for (const meetingId of meetingIds) {
        await transitionMeeting(api.database.db, webhookOutbox, meetingId, { to: status, source: 'bench' });
        await announce([meetingId]);
      }
    });
  }
  for (let segment = 0; segment < segmentsPerMeeting; segment += 1) {
    steps.push(async () => {
      for (const meetingId of meetingIds) {
        await api.database.db.transaction(async (trx) => {
          const written = await upsertSegments(trx, [
            {
              meetingId,
              segmentId: `s${segment}`,
              start: segment * 2,
              end: segment * 2 + 1.8,
              text: 'we agreed to ship the release on friday after the last review',
              speaker: 'Ann',
              language: 'en',
              absoluteStartTime: new Date(Date.UTC(2026, 10, 22, 10) + segment * 2000),
              absoluteEndTime: new Date(Date.UTC(2026, 10, 22, 10) + segment * 2000 + 1800),
              final: true,
            },
          ]);
          await webhookOutbox.transcriptSegmentsWritten(trx, { segments: written });
        });
        await announce([meetingId]);
      }
    });
  }
  steps.push(async () => {
    for (const meetingId of meetingIds) {
      await transitionMeeting(api.database.db, webhookOutbox, meetingId, {
        to: 'completed',
        source: 'bench',
        reason: 'stopped',
      });
      await announce([meetingId]);
    }
  });
  for (const step of steps) await step();
  const committedAt = Date.now();
  const deliveryStart = values.backlog ? Date.now() : started;
  webhooks ??= await startWebhookService(api);

  const rows: Array<{ id: string; created_at: Date }> = await api.database
    .db('webhook_deliveries')
    .select('id', 'created_at');
  const deadline = Date.now() + 600_000;
  while (arrivals.size < rows.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const finished = Math.max(...arrivals.values());

  const latencies = values.backlog
    ? []
    : rows
        .filter((row) => arrivals.has(row.id))
        .map((row) => arrivals.get(row.id)! - row.created_at.getTime())
        .sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  const duplicates = receiver.received.length - arrivals.size;
  const seconds = (finished - deliveryStart) / 1000;
  process.stdout.write(
    `deliveries: ${rows.length} for ${meetingCount} meetings (received ${arrivals.size}, duplicates ${duplicates})\n` +
      (values.backlog
        ? `backlog of ${rows.length} delivered in ${seconds.toFixed(2)} s: ${(rows.length / seconds).toFixed(0)} deliveries/s\n`
        : `commit → receiver: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${latencies.at(-1)} ms\n` +
          `writing took ${((committedAt - started) / 1000).toFixed(2)} s; all delivered ${seconds.toFixed(2)} s after the first commit\n`),
  );
} finally {
  await webhooks?.close();
  await receiver.close();
  await api.close();
}
process.exit(0);
