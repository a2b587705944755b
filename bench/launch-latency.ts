/**
 * Launch latency over real containers: POST /bots → bot container running, and → meeting `joining`
 * (the bot opened the meeting page), p50/p95 over sequential launches into simulated meetings.
 *   npx tsx bench/launch-latency.ts [--launches 10]
 */
import { parseArgs } from 'node:util';
import { startStack } from '../test/support/stack.js';
import { Labels } from '../worker/runtime/bot-runtime.js';

const { values } = parseArgs({ options: { launches: { type: 'string', default: '10' } } });
const launches = Number(values.launches);

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

const stack = await startStack({ workerEnv: { LOG_LEVEL: 'warn' } });
const worker = stack.startWorker('bench-launch');
const toRunning: number[] = [];
const toJoining: number[] = [];
try {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  for (let index = 0; index < launches; index += 1) {
    const meeting = await stack.simulator.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'open' },
    });
    const startedEvents = (await stack.docker.getEvents({
      filters: { type: ['container'], event: ['start'], label: [`${Labels.deployment}=${stack.api.prefix}`] },
    })) as NodeJS.ReadableStream & { destroy(): void };
    const postedAt = Date.now();
    const running = new Promise<number>((resolve) => {
      startedEvents.on('data', (chunk: Buffer) => {
        const event = JSON.parse(chunk.toString().split('\n')[0]!) as { timeNano?: number };
        resolve(event.timeNano ? event.timeNano / 1e6 : Date.now());
      });
    });
    const response = await stack.api.request('POST', '/bots', {
      key: stack.user.key,
      json: { platform: 'google_meet', native_meeting_id: meeting.id, meeting_url: meeting.url },
    });
    if (response.status !== 201) throw new Error(`POST /bots: ${response.status} ${response.text}`);
    const meetingId = response.body.id as number;
    toRunning.push(Math.round((await running) - postedAt));
    startedEvents.destroy();
    await stack.waitForStatus(
      meetingId,
      ['joining', 'awaiting_admission', 'active', 'failed', 'completed'],
      120_000,
    );
    const joining = (await stack.transitions(meetingId)).find((t) => t.to === 'joining');
    if (!joining) throw new Error(`meeting ${meetingId} never reported joining`);
    toJoining.push(joining.createdAt.getTime() - postedAt);
    await stack.api.request('DELETE', `/bots/google_meet/${meeting.id}`, { key: stack.user.key });
    for (let wait = 0; wait < 120 && (await stack.containersOf(meetingId)).length > 0; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    process.stdout.write(
      `launch ${index + 1}: running ${toRunning.at(-1)} ms, joining ${toJoining.at(-1)} ms\n`,
    );
  }
  const running = [...toRunning].sort((a, b) => a - b);
  const joining = [...toJoining].sort((a, b) => a - b);
  process.stdout.write(
    `POST /bots → container running: p50 ${percentile(running, 50)} ms, p95 ${percentile(running, 95)} ms (n=${launches})\n` +
      `POST /bots → joining:           p50 ${percentile(joining, 50)} ms, p95 ${percentile(joining, 95)} ms (n=${launches})\n`,
  );
} finally {
  await stack.stopWorker(worker);
  await stack.close();
}
process.exit(0);
