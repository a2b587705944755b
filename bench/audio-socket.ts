/**
 * The meeting audio WebSocket through the full stack (simulated meeting → bot container → Redis →
 * API → client): how late each 200 ms chunk reaches a local client after the bot captured it
 * (receive time − `captured_at_ms`: p50, p95, max), the chunks lost on the way (gaps in `seq`), and
 * what the bot's bounded audio stream holds in Redis. With `--slow`, a second client that never
 * reads is open at the same time: it must be dropped (4000) while the first one's figures stay.
 *
 *   MEETBOT_TEST_BOT_IMAGE_READY=1 npx tsx bench/audio-socket.ts [--platform google_meet|teams|zoom] [--seconds 60] [--slow]
 *     (BOT_IMAGE=… measures another bot image)
 *
 * Needs what the e2e tests need (Docker, Postgres, Redis, the bot image).
 */
import { parseArgs } from 'node:util';
import { botAudioStream } from '../shared/contract/audio-stream.js';
import { type AudioSocketClient, audioSocketUrl, openAudioSocket } from '../test/support/audio-socket.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import { startStack } from '../test/support/stack.js';

const { values } = parseArgs({
  options: {
    platform: { type: 'string', default: 'google_meet' },
    seconds: { type: 'string', default: '60' },
    slow: { type: 'boolean', default: false },
  },
});
const PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
const PLATFORM = PLATFORMS.find((platform) => platform === values.platform);
if (!PLATFORM) throw new Error(`--platform must be one of ${PLATFORMS.join(', ')}`);
const SECONDS = Number(values.seconds);

const percentile = (list: number[], p: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

const stack = await startStack({
  workerEnv: { BOT_SLOTS: '1', LOG_LEVEL: 'warn', WORKER_METRICS_PORT: '0' },
});
try {
  stack.startWorker('bench-audio-socket');
  const { meetingId } = await stack.createMeetingAndBot({
    platform: PLATFORM,
    admission: { policy: 'after', delaySeconds: 1 },
    participants: continuousSpeech(SECONDS),
    endAt: SECONDS,
  });
  await stack.waitForStatus(meetingId, ['active'], 180_000);
  const headers = { 'X-API-Key': stack.user.key };
  const client: AudioSocketClient = await openAudioSocket(audioSocketUrl(stack.api.baseUrl, meetingId), {
    headers,
  });
  let slow: AudioSocketClient | null = null;
  if (values.slow) {
    slow = await openAudioSocket(audioSocketUrl(stack.api.baseUrl, meetingId), { headers });
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  }

  // Halfway through: what the bot's audio stream holds in Redis.
  await new Promise((resolve) => setTimeout(resolve, (SECONDS / 2) * 1000));
  const meeting = (await stack.api.request('GET', `/meetings/${meetingId}`, { key: stack.user.key })).body;
  const session = (await stack.api.database.db('meetings').where({ id: meetingId }).first())
    ?.launch_session_id as string;
  const stream = botAudioStream(stack.api.prefix, session);
  const entries = await stack.api.redis.xlen(stream);
  const bytes = Number(await stack.api.redis.call('MEMORY', 'USAGE', stream));

  const closed = await client.closed;
  const frames = client.audio;
  const latencies = frames.map((frame) => frame.receivedAtMs - frame.header.captured_at_ms);
  const seqs = frames.map((frame) => frame.header.seq);
  const lost = seqs.length === 0 ? 0 : seqs.at(-1)! - seqs[0]! + 1 - seqs.length;
  const seconds = frames.reduce((sum, frame) => sum + frame.header.samples, 0) / 16_000;
  const named = frames.filter((frame) => frame.header.speaker !== null).length;
  console.log(
    `platform ${PLATFORM}, meeting ${meetingId} (${meeting.status} halfway), closed ${closed.code} "${closed.reason}"`,
  );
  console.log(
    `frames ${frames.length} (${seconds.toFixed(1)} s of audio), lost ${lost} (${((lost / Math.max(1, lost + frames.length)) * 100).toFixed(2)} %), with a speaker name ${named}`,
  );
  console.log(
    `latency capture → client: p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${Math.max(...latencies)} ms`,
  );
  const toApi = frames.map((frame) => frame.header.sent_at_ms - frame.header.captured_at_ms);
  const toClient = frames.map((frame) => frame.receivedAtMs - frame.header.sent_at_ms);
  console.log(
    `  of which bot → Redis → API sent: p50 ${percentile(toApi, 50)} ms, p95 ${percentile(toApi, 95)} ms; API → client: p50 ${percentile(toClient, 50)} ms, p95 ${percentile(toClient, 95)} ms`,
  );
  const first = frames[0]?.header;
  const last = frames.at(-1)?.header;
  if (first && last)
    console.log(
      `socket heard the transcript's ${first.start.toFixed(1)}–${last.end.toFixed(1)} s (${(last.end - first.start).toFixed(1)} s of meeting time for ${seconds.toFixed(1)} s of audio)`,
    );
  console.log(`redis audio stream halfway: ${entries} entries, ${(bytes / 1024).toFixed(0)} KiB`);
  if (slow) {
    const slowClosed = await Promise.race([
      slow.closed,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000)),
    ]);
    console.log(
      `slow client (never reads): ${slowClosed ? `closed ${slowClosed.code} "${slowClosed.reason}"` : 'still open (the kernel buffers were not full yet)'}`,
    );
  }
} finally {
  await stack.close();
}
