import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../../support/sse.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';
import { hasValidSignature, WebhookReceiver } from '../../support/webhook-receiver.js';

let stack: Stack;
let worker: WorkerProcess;
const receiver = new WebhookReceiver();
const WEBHOOK_SECRET = 'full-path-secret-0123456789';

beforeAll(async () => {
  stack = await startStack();
  worker = stack.startWorker('full-path-w1');
  await receiver.start();
});
afterAll(async () => {
  await stack?.close();
  await receiver.close();
});

const SCRIPT = [
  {
    name: 'Alice Archer',
    voice: 'slt' as const,
    utterances: [{ at: 1, text: 'good morning everyone and welcome to the weekly review' }],
  },
  {
    name: 'Bob Baker',
    voice: 'rms' as const,
    utterances: [{ at: 6, text: 'thank you I finished the quarterly report yesterday' }],
  },
];

describe.each(['google_meet', 'teams'] as const)(
  '%s: REST call to transcript, through a real container',
  (platform) => {
    it('passes requested → joining → awaiting_admission → active, serves segments while active, and stops cleanly', async () => {
      const { meetingId, nativeId } = await stack.createMeetingAndBot(
        {
          platform,
          admission: { policy: 'after', delaySeconds: 3 },
          participants: SCRIPT,
        },
        { webhook_url: receiver.url, webhook_secret: WEBHOOK_SECRET },
      );

      // A live client follows the meeting from the start, as a user's app would.
      const live: SseClient = await openSse(
        `${stack.api.baseUrl}/transcripts/${platform}/${nativeId}/stream`,
        {
          'X-API-Key': stack.user.key,
        },
      );
      const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
      expect(seen.at(-1)).toBe('active');
      const transitions = await stack.transitions(meetingId);
      expect(transitions.map((t) => t.to)).toEqual(['requested', 'joining', 'awaiting_admission', 'active']);
      // What the API showed on the way was that same order (polling may skip a quick step, never reorder).
      const order = ['requested', 'joining', 'awaiting_admission', 'active'];
      expect(seen.map((status) => order.indexOf(status))).toEqual(
        [...seen.map((status) => order.indexOf(status))].sort(),
      );

      const running = await stack.api.request('GET', '/bots/status', { key: stack.user.key });
      const entry = running.body.running_bots.find(
        (bot: { meeting_id: number }) => bot.meeting_id === meetingId,
      );
      expect(entry.container_id).toMatch(/^[0-9a-f]{64}$/);
      expect((await stack.containersOf(meetingId)).map((c) => c.Id)).toEqual([entry.container_id]);

      // Segments are readable while the meeting runs.
      let transcript = await pollTranscript(
        meetingId,
        platform,
        nativeId,
        (t) => t.segments.length > 0 && t.status === 'active',
      );
      expect(transcript.segments[0].speaker).toBe('Alice Archer');

      const played = await stack.simulator.waitForSpeechDone(nativeId, { timeoutMs: 60_000 });
      // Give the engine time to finish the last utterance before stopping (it is flushed on leave anyway).
      const stop = await stack.api.request('DELETE', `/bots/${platform}/${nativeId}`, {
        key: stack.user.key,
      });
      expect(stop.status).toBe(202);
      expect(stop.body).toMatchObject({ status: 'completed', bot_container_id: null });

      await expect.poll(() => stack.containersOf(meetingId), { timeout: 60_000, interval: 500 }).toEqual([]);
      const simulated = await stack.simulator.getMeeting(nativeId);
      expect(simulated.bot.state).toBe('left');
      expect(simulated.bot.leaveReason).toBe('leave_button');

      // Every utterance spoken before the stop is in the transcript, attributed to its speaker, in order.
      transcript = await pollTranscript(meetingId, platform, nativeId, (t) =>
        played.utterances.every((u) => t.segments.some((s: Segment) => s.speaker === u.speaker)),
      );
      for (const utterance of played.utterances.filter((u) => u.status === 'played')) {
        const startedAt = Date.parse(utterance.startedAt!);
        const match = transcript.segments.find(
          (s: Segment) =>
            s.speaker === utterance.speaker && Math.abs(Date.parse(s.absolute_start_time) - startedAt) < 1500,
        );
        expect(match, `segment for "${utterance.text}"`).toBeDefined();
      }
      const starts = transcript.segments.map((s: Segment) => s.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      expect(transcript.status).toBe('completed');

      // The live client saw the statuses in order, segments while the meeting ran, and the same transcript.
      await live.ended;
      const statuses = live.events.filter((e) => e.event === 'status').map((e) => e.data.status);
      expect(statuses).toEqual(['requested', 'joining', 'awaiting_admission', 'active', 'completed']);
      const firstSegment = live.events.findIndex((e) => e.event === 'segment');
      const completedAt = live.events.findIndex((e) => e.event === 'status' && e.data.status === 'completed');
      expect(firstSegment).toBeGreaterThan(-1);
      expect(firstSegment).toBeLessThan(completedAt);
      const latest = new Map<string, Segment>();
      for (const event of live.events)
        if (event.event === 'segment') latest.set(event.data.segment_id, event.data);
      expect([...latest.values()].map((s) => s.text).sort()).toEqual(
        transcript.segments.map((s: Segment) => s.text).sort(),
      );
      expect(live.events.at(-1)?.event).toBe('end');

      // The bot's webhook got every status change in order and every final segment, all signed.
      const deliveries = () =>
        receiver.received.filter((request) => request.json.data.meeting.id === meetingId);
      const statusesOf = () =>
        deliveries()
          .filter((request) => request.json.type === 'meeting.status_changed')
          .map((request) => request.json.data.status);
      await expect.poll(statusesOf, { timeout: 30_000 }).toEqual(statuses);
      const hooked = new Map<string, string>();
      await expect
        .poll(
          () => {
            for (const request of deliveries())
              if (request.json.type === 'transcript.segments')
                for (const segment of request.json.data.segments)
                  hooked.set(segment.segment_id, segment.text);
            return [...hooked.values()].sort();
          },
          { timeout: 30_000 },
        )
        .toEqual(transcript.segments.map((s: Segment) => s.text).sort());
      for (const request of deliveries()) {
        expect(request.answered).toBe(200);
        expect(hasValidSignature(request, WEBHOOK_SECRET)).toBe(true);
      }
    });
  },
);

interface Segment {
  start: number;
  speaker: string;
  text: string;
  absolute_start_time: string;
}

async function pollTranscript(
  meetingId: number,
  platform: string,
  nativeId: string,
  done: (transcript: { status: string; segments: Segment[] }) => boolean,
  timeoutMs = 90_000,
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await stack.api.request('GET', `/transcripts/${platform}/${nativeId}`, {
      key: stack.user.key,
    });
    if (response.body.id === meetingId && done(response.body)) return response.body;
    if (Date.now() > deadline)
      throw new Error(`transcript never got there: ${response.text}\n${worker.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
