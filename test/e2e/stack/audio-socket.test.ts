import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AudioSocketClient, audioSocketUrl, openAudioSocket } from '../../support/audio-socket.js';
import { overlap, recognize } from '../../support/recognize.js';
import { type Stack, startStack } from '../../support/stack.js';

/**
 * Issue 34's raw audio out, through the real stack (API, worker, bot container, simulator): on
 * each platform a client opens the meeting's audio socket once the bot is active and keeps it
 * until the meeting ends; the embedded recognizer (the bot's own) run on the PCM it received hears
 * the scripted words, and the frames name who spoke. The bot publishes only once it sees the socket
 * listening (up to about a second after `ready`), so the first words come well after that.
 */
const SCRIPT = [
  {
    name: 'Alice Archer',
    voice: 'slt' as const,
    utterances: [{ at: 9, text: 'please send me the quarterly report by friday afternoon' }],
  },
  {
    name: 'Bob Baker',
    voice: 'rms' as const,
    utterances: [{ at: 17, text: 'we should schedule a meeting with the design team' }],
  },
];

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

async function listenAndCheck(stack: Stack, platform: 'google_meet' | 'teams'): Promise<void> {
  const { meetingId } = await stack.createMeetingAndBot({
    platform,
    admission: { policy: 'after', delaySeconds: 1 },
    participants: SCRIPT,
    endAt: 27,
  });
  await stack.waitForStatus(meetingId, ['active'], 180_000);
  const socket: AudioSocketClient = await openAudioSocket(audioSocketUrl(stack.api.baseUrl, meetingId), {
    headers: { 'X-API-Key': stack.user.key },
  });
  const closed = await Promise.race([
    socket.closed,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${platform}: the audio socket outlived the meeting`)), 180_000),
    ),
  ]);
  expect(closed).toEqual({ code: 1000, reason: 'Meeting ended (status: completed)' });
  expect(socket.control[0]).toMatchObject({ type: 'ready', meeting_id: meetingId, sample_rate: 16000 });

  const frames = socket.audio;
  const seqs = frames.map((frame) => frame.header.seq);
  const lost = seqs.length === 0 ? 0 : seqs.at(-1)! - seqs[0]! + 1 - seqs.length;
  const latencies = frames.map((frame) => frame.receivedAtMs - frame.header.captured_at_ms);
  const speakers = new Set(frames.map((frame) => frame.header.speaker).filter((name) => name !== null));
  const heard = await recognize(socket.samples());
  console.log(
    `${platform}: ${frames.length} frames (${(frames.length / 5).toFixed(1)} s), ${lost} lost; ` +
      `latency p50 ${percentile(latencies, 0.5)} ms, p95 ${percentile(latencies, 0.95)} ms; ` +
      `speakers ${[...speakers].join(', ')}\n  heard "${heard}"`,
  );
  const backwards = frames
    .slice(1)
    .map((frame, index) => ({ frame: frame.header, previous: frames[index]!.header }))
    .filter(({ frame, previous }) => frame.start < previous.start);
  if (backwards.length > 0)
    console.log(`${platform}: starts going back`, JSON.stringify(backwards.slice(0, 5)));
  // The chunks come in the bot's order, each once, times on the transcript's line going forward.
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(seqs).size).toBe(seqs.length);
  expect(lost).toBeLessThanOrEqual(seqs.length * 0.02);
  for (let index = 1; index < frames.length; index += 1)
    expect(frames[index]!.header.start).toBeGreaterThanOrEqual(frames[index - 1]!.header.start);
  expect(frames.every((frame) => frame.header.samples === frame.pcm.length / 2)).toBe(true);
  // Both utterances were spoken while the socket was open: the recognizer hears them in what it got.
  for (const { utterances } of SCRIPT)
    expect(overlap(utterances[0]!.text, heard)).toBeGreaterThanOrEqual(0.5);
  // The frames name the speakers, from the bot's attribution.
  expect(speakers).toEqual(new Set(['Alice Archer', 'Bob Baker']));
}

describe('meeting audio over the audio WebSocket', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    stack.startWorker('audio-socket');
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('a client receives both platforms’ meeting audio live; the recognizer hears the spoken words in it', async () => {
    await Promise.all([listenAndCheck(stack, 'google_meet'), listenAndCheck(stack, 'teams')]);
  });
});
