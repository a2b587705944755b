/**
 * Whether a recording keeps the transcript's time base over a whole meeting: one bot records a
 * `--minutes` meeting (one utterance every `--every` seconds, three voices) through the full stack;
 * the recording is fetched through the API and decoded, and for every utterance the simulator
 * played, the moment its voice starts in the recording is found (first 10 ms over −40 dBFS near where
 * it should be) and compared with when the simulator heard it, on the transcript's clock (the
 * segments' absolute time less their `start`). Prints the offset per utterance, the drift (slope,
 * ms per hour, and first-to-last change) and the worst deviation; segment starts against the same
 * truth are printed beside it.
 *
 *   npx tsx bench/recording-time-base.ts [--minutes 5] [--every 15] [--platform google_meet|teams]
 */
import { parseArgs } from 'node:util';
import { decodeOggOpus, onsetBetween } from '../test/support/recording-audio.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import { driftPerHourMs, median, utteranceTimings } from '../test/support/speech-timing.js';
import { startStack } from '../test/support/stack.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    every: { type: 'string', default: '15' },
    platform: { type: 'string', default: 'google_meet' },
  },
});
const SECONDS = Math.min(Number(values.minutes) * 60, 3590);
const PLATFORM = values.platform === 'teams' ? 'teams' : 'google_meet';

const stack = await startStack({ workerEnv: { LOG_LEVEL: 'warn', WORKER_METRICS_PORT: '0' } });
try {
  stack.startWorker('recording-bench');
  const { meetingId, nativeId } = await stack.createMeetingAndBot(
    {
      platform: PLATFORM,
      admission: { policy: 'after', delaySeconds: 1 },
      participants: continuousSpeech(SECONDS, { everySeconds: Number(values.every) }),
      endAt: SECONDS,
    },
    { recording_enabled: true },
  );
  const seen = await stack.waitForStatus(meetingId, ['completed', 'failed'], (SECONDS + 240) * 1000);
  if (seen.at(-1) !== 'completed') throw new Error(`the meeting ended ${seen.join(' → ')}`);
  const key = { key: stack.user.key };
  let recording:
    | { id: number; state: string; start: number; duration: number; size: number; media_url: string }
    | undefined;
  for (let tries = 0; tries < 240 && recording?.state !== 'ready'; tries += 1) {
    recording = (await stack.api.request('GET', `/meetings/${meetingId}`, key)).body.recordings?.[0];
    if (recording?.state !== 'ready') await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (recording?.state !== 'ready') throw new Error(`no ready recording: ${JSON.stringify(recording)}`);
  const media = await fetch(recording.media_url);
  if (media.status !== 200)
    throw new Error(`GET ${recording.media_url}: ${media.status} ${await media.text()}`);
  const file = Buffer.from(await media.arrayBuffer());
  const audio = decodeOggOpus(file);

  const transcript = (await stack.api.request('GET', `/transcripts/${PLATFORM}/${nativeId}`, key)).body;
  const segments = transcript.segments as Array<{
    start: number;
    text: string;
    absolute_start_time: string;
    absolute_end_time: string;
  }>;
  const first = segments[0];
  if (!first) throw new Error('no segments');
  const origin = Date.parse(first.absolute_start_time) - first.start * 1000;
  const snapshot = await stack.simulator.getMeeting(nativeId);
  const utterances = snapshot.utterances.filter((utterance) => utterance.speechStartedAt);

  const offsets: Array<{ spokenAt: number; offsetMs: number }> = [];
  for (const utterance of utterances) {
    const spokenAt = Date.parse(utterance.speechStartedAt!);
    const expected = (spokenAt - origin) / 1000 - recording.start;
    const onset = onsetBetween(audio, expected - 1.5, expected + 1.5);
    if (Number.isFinite(onset)) offsets.push({ spokenAt, offsetMs: (onset - expected) * 1000 });
  }
  const timings = utteranceTimings(
    snapshot.utterances,
    segments.map((segment) => ({
      text: segment.text,
      absoluteStartTime: segment.absolute_start_time,
      absoluteEndTime: segment.absolute_end_time,
    })),
  );
  const asTimings = offsets.map((entry, index) => ({
    id: String(index),
    text: '',
    spokenAt: entry.spokenAt,
    startOffsetMs: entry.offsetMs,
    endOffsetMs: 0,
  }));
  const firstOffsets = offsets.slice(0, 5).map((entry) => entry.offsetMs);
  const lastOffsets = offsets.slice(-5).map((entry) => entry.offsetMs);
  const worst = Math.max(...offsets.map((entry) => Math.abs(entry.offsetMs - median(firstOffsets))));
  console.log(
    `recording time base: ${PLATFORM}, ${(SECONDS / 60).toFixed(1)} min meeting, recording ${recording.duration.toFixed(1)} s, ${recording.size} bytes (${(((recording.size / recording.duration) * 60) / 1024).toFixed(0)} KiB per minute)`,
  );
  console.log(`utterances found in the recording: ${offsets.length} of ${utterances.length}`);
  console.log(
    `voice onset in the recording vs the simulator, on the transcript's clock: median of the first 5 ${median(firstOffsets).toFixed(0)} ms, of the last 5 ${median(lastOffsets).toFixed(0)} ms; drift ${driftPerHourMs(asTimings, (t) => t.startOffsetMs).toFixed(0)} ms/h; worst deviation from the start ${worst.toFixed(0)} ms`,
  );
  console.log(
    `segment starts vs the simulator: median ${median(timings.map((t) => t.startOffsetMs)).toFixed(0)} ms, drift ${driftPerHourMs(timings, (t) => t.startOffsetMs).toFixed(0)} ms/h`,
  );
  if (process.env.TIME_BASE_DETAIL)
    for (const entry of offsets)
      console.log(`${new Date(entry.spokenAt).toISOString()} ${entry.offsetMs.toFixed(0)} ms`);
} finally {
  await stack.close();
}
process.exit(0);
