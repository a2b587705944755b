import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { continuousSpeech } from '../../support/speech-script.js';
import { freePort, type Stack, startStack } from '../../support/stack.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

/**
 * A bot whose recognizer gets no CPU (its process is stopped, as a starved container's would all but
 * be) must say so: a `lagging` health event and the worker's lag metric, no new launches on that
 * worker meanwhile, the audio it had to drop reported with its wall-clock bounds, and `caught_up`
 * once the recognizer runs again.
 */
let stack: Stack;
let metricsPort: number;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  metricsPort = await freePort();
  stack = await startStack();
  stack.startWorker('lag-w1', { WORKER_METRICS_PORT: String(metricsPort), BOT_SLOTS: '2' });
  await receiver.start();
});
afterAll(async () => {
  await stack?.close();
  await receiver.close();
});

async function metric(name: string, labels = ''): Promise<number | null> {
  const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    .then((response) => response.text())
    .catch(() => '');
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`meetbot_${name}`) && candidate.includes(labels));
  return line ? Number(line.split(' ').at(-1)) : null;
}

/**
 * The meeting's transcription-health webhook events about the engine: a capture that loses audio
 * on a machine loaded by other work reports that too (dropped_by capture), which is not this test's.
 */
function healthEvents(meetingId: number): Array<{
  kind: string;
  lag_seconds: number;
  dropped_from: string | null;
  dropped_to: string | null;
  dropped_by: string | null;
}> {
  return receiver.received
    .filter((request) => request.json?.type === 'meeting.transcription_health')
    .map((request) => request.json.data)
    .filter((data) => data.meeting.id === meetingId && data.dropped_by !== 'capture');
}

/** The host PID of the recognizer in a bot container. */
async function recognizerPid(containerId: string): Promise<number> {
  const top = (await stack.docker.getContainer(containerId).top({ ps_args: '-o pid' })) as {
    Processes?: string[][];
  };
  for (const row of top.Processes ?? []) {
    const pid = Number(row[0]);
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('pocketsphinx')) return pid;
    } catch {}
  }
  throw new Error('no recognizer process in the bot container');
}

describe('a bot starved of CPU', () => {
  it('reports its lag (event and metric), holds back launches, says what it dropped, and reports catching up', async () => {
    const { meetingId, nativeId } = await stack.createMeetingAndBot(
      {
        platform: 'google_meet',
        admission: { policy: 'after', delaySeconds: 1 },
        participants: continuousSpeech(130),
        endAt: 130,
      },
      { webhook_url: receiver.url },
    );
    expect((await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000)).at(-1)).toBe(
      'active',
    );
    await stack.simulator.waitFor(
      nativeId,
      (m) => m.utterances.some((u) => u.status === 'played'),
      'speech',
      {
        timeoutMs: 30_000,
      },
    );
    const [container] = await stack.containersOf(meetingId);
    const pid = await recognizerPid(container!.Id);
    process.kill(pid, 'SIGSTOP');
    let second: { meetingId: number } | null = null;
    try {
      await expect
        .poll(() => healthEvents(meetingId).map((event) => event.kind), { timeout: 60_000, interval: 500 })
        .toContain('lagging');
      expect(healthEvents(meetingId)[0]!.lag_seconds).toBeGreaterThanOrEqual(10);
      await expect.poll(() => metric('bots_lagging'), { timeout: 15_000, interval: 500 }).toBe(1);
      expect(
        await metric('bot_transcription_lag_seconds', `meeting_id="${meetingId}"`),
      ).toBeGreaterThanOrEqual(10);

      // A launch asked for now waits: this worker takes none while its bot lags.
      second = await stack.createMeetingAndBot({
        platform: 'google_meet',
        admission: { policy: 'after', delaySeconds: 1 },
        participants: continuousSpeech(15),
        endAt: 15,
      });
      // Stopped long enough for the backlog to reach the engine's limit (30 s): audio is dropped.
      await expect
        .poll(() => metric('bot_transcription_lag_seconds', `meeting_id="${meetingId}"`), {
          timeout: 60_000,
          interval: 1000,
        })
        .toBeGreaterThanOrEqual(29.5);
      // The backlog stays at the limit from here (new audio is dropped, not queued).
      await new Promise((resolve) => setTimeout(resolve, 5000));
      expect(await metric('bot_transcription_lag_seconds', `meeting_id="${meetingId}"`)).toBeLessThan(35);
      const meanwhile = await stack.api.request('GET', `/meetings/${second.meetingId}`, {
        key: stack.user.key,
      });
      expect(meanwhile.body.status).toBe('requested');
    } finally {
      process.kill(pid, 'SIGCONT');
    }

    await expect
      .poll(() => healthEvents(meetingId).map((event) => event.kind), { timeout: 60_000, interval: 500 })
      .toEqual(['lagging', 'audio_dropped', 'caught_up']);
    const dropped = healthEvents(meetingId)[1]!;
    expect(dropped.dropped_by).toBe('engine');
    const droppedSeconds = (Date.parse(dropped.dropped_to!) - Date.parse(dropped.dropped_from!)) / 1000;
    expect(droppedSeconds).toBeGreaterThan(1);
    await expect.poll(() => metric('bots_lagging'), { timeout: 15_000, interval: 500 }).toBe(0);
    const history = await stack.api.request('GET', `/meetings/${meetingId}/events`, { key: stack.user.key });
    expect(
      history.body.events
        .filter((event: { detail: string | null }) => !event.detail?.includes('audio capture lost'))
        .map((event: { reason: string | null }) => event.reason)
        .filter((reason: string | null) => reason?.includes('transcription') || reason === 'audio_dropped'),
    ).toEqual(['transcription_lagging', 'audio_dropped', 'transcription_caught_up']);
    // Caught up: the held launch goes ahead.
    expect(
      (
        await stack.waitForStatus(
          second!.meetingId,
          ['joining', 'awaiting_admission', 'active', 'completed', 'failed'],
          60_000,
        )
      ).at(-1),
    ).not.toBe('failed');

    // Segments keep coming after the stretch it dropped, and none claims to cover it.
    const final = await stack.waitForStatus(meetingId, ['completed', 'failed'], 120_000);
    expect(final.at(-1)).toBe('completed');
    const segments: Array<{ absolute_start_time: Date; absolute_end_time: Date }> = await stack.api.database
      .db('transcript_segments')
      .where({ meeting_id: meetingId, is_final: true });
    const from = Date.parse(dropped.dropped_from!);
    const to = Date.parse(dropped.dropped_to!);
    expect(segments.some((segment) => segment.absolute_start_time.getTime() >= to)).toBe(true);
    for (const segment of segments) {
      const overlap =
        Math.min(segment.absolute_end_time.getTime(), to) -
        Math.max(segment.absolute_start_time.getTime(), from);
      expect(overlap).toBeLessThan(1000);
    }
  });
});
