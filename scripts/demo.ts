import { parseArgs } from 'node:util';
import { SimulatorClient } from '../simulator/client.js';

/**
 * Sends a bot into a scripted simulated meeting through the public API and prints the transcript
 * as it grows. Run by `npm run demo`, which starts the stack and the simulator first.
 */
const { values } = parseArgs({
  options: {
    api: { type: 'string', default: 'http://127.0.0.1:8056' },
    key: { type: 'string' },
    simulator: { type: 'string', default: 'http://127.0.0.1:4100' },
    platform: { type: 'string', default: 'google_meet' },
  },
});
if (!values.key) throw new Error('--key API_KEY is required');
const platform = values.platform === 'teams' ? 'teams' : 'google_meet';
const headers = { 'X-API-Key': values.key, 'Content-Type': 'application/json' };
const simulator = new SimulatorClient(values.simulator);

const meeting = await simulator.createMeeting({
  platform,
  admission: { policy: 'after', delaySeconds: 3 },
  participants: [
    {
      name: 'Alice Archer',
      voice: 'slt',
      utterances: [
        { at: 1, text: 'good morning everyone, welcome to the weekly planning meeting' },
        { at: 16, text: 'great, then we ship on friday' },
      ],
    },
    {
      name: 'Bob Baker',
      voice: 'rms',
      utterances: [{ at: 6, text: 'thank you, the quarterly report is finished' }],
    },
    {
      name: 'Carol Chen',
      voice: 'awb',
      utterances: [{ at: 11, text: 'the new release is ready for testing' }],
    },
  ],
});
process.stdout.write(`simulated meeting: ${meeting.url}  (watch it at ${values.simulator}/)\n`);

const created = await fetch(`${values.api}/bots`, {
  method: 'POST',
  headers,
  body: JSON.stringify({
    platform,
    native_meeting_id: meeting.id,
    meeting_url: meeting.url,
    bot_name: 'Meetbot Demo',
    ...(meeting.passcode && { passcode: meeting.passcode }),
  }),
});
const bot = (await created.json()) as { id?: number; error?: string };
if (!created.ok) throw new Error(`POST /bots answered ${created.status}: ${bot.error}`);
process.stdout.write(`bot requested: meeting ${bot.id}\n`);

interface Segment {
  start: number;
  end: number;
  speaker: string;
  text: string;
}
const printed = new Map<string, string>();
let lastStatus = '';
const deadline = Date.now() + 180_000;
let speechDoneAt: number | undefined;
while (Date.now() < deadline) {
  const response = await fetch(`${values.api}/transcripts/${platform}/${meeting.id}`, { headers });
  const transcript = (await response.json()) as { status: string; segments: Segment[] };
  if (transcript.status !== lastStatus) {
    process.stdout.write(`status: ${transcript.status}\n`);
    lastStatus = transcript.status;
  }
  for (const segment of transcript.segments) {
    const key = `${segment.start}`;
    const line = `[${segment.start.toFixed(1).padStart(6)}s] ${segment.speaker}: ${segment.text}`;
    if (printed.get(key) !== line) {
      process.stdout.write(`${line}\n`);
      printed.set(key, line);
    }
  }
  if (transcript.status === 'completed' || transcript.status === 'failed') break;
  const state = await simulator.getMeeting(meeting.id);
  if (
    speechDoneAt === undefined &&
    state.utterances.every((u) => ['played', 'missed', 'cut'].includes(u.status))
  ) {
    speechDoneAt = Date.now();
  }
  if (speechDoneAt !== undefined && Date.now() - speechDoneAt > 4000) {
    const stop = await fetch(`${values.api}/bots/${platform}/${meeting.id}`, { method: 'DELETE', headers });
    process.stdout.write(`stop requested (${stop.status}); the bot leaves and flushes its last words\n`);
    speechDoneAt = Number.POSITIVE_INFINITY;
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
