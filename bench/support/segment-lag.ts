/**
 * How the bots' final segments sit against the speech their meetings played: utterances no segment
 * covers, WER, the lag from the end of each utterance's speech to its segment's commit, and the
 * segments' start and end times against the voices'.
 */
import { driftPerHourMs, utteranceTimings } from '../../test/support/speech-timing.js';
import type { Stack } from '../../test/support/stack.js';
import { wordErrorRate } from '../../test/support/wer.js';

export interface SegmentLag {
  /** Utterances played in full that no segment covers. */
  missed: number;
  /** Utterances played in full. */
  utterances: number;
  wer: number;
  lagFirst: number[];
  lagSecond: number[];
  /**
   * Every utterance's lag with when its speech ended, seconds into the meeting, and how much of it
   * is `heardLate`: the segment's own end time after the voice's (seconds), i.e. audio the bot's
   * capture heard late (waiting in the page between WebRTC and the capture), against the rest
   * (delivery to Node, the recognizer's backlog, committing).
   */
  lagTimeline: Array<{ at: number; lag: number; heardLate: number }>;
  offsets: {
    firstStart: number[];
    firstEnd: number[];
    lastStart: number[];
    lastEnd: number[];
    drift: number[];
  };
}

/** The lag and accuracy of the bots' segments in `meetings`, each `seconds` long. */
export async function measureSegmentLag(
  stack: Stack,
  meetings: Array<{ meetingId: number; nativeId: string }>,
  seconds: number,
): Promise<SegmentLag> {
  let missed = 0;
  let utterances = 0;
  const references: string[] = [];
  const hypotheses: string[] = [];
  const lagFirst: number[] = [];
  const lagSecond: number[] = [];
  const lagTimeline: SegmentLag['lagTimeline'] = [];
  /** Segment start/end against the voice's, in the first and the last fifth; drift fitted over all. */
  const offsets = {
    firstStart: [] as number[],
    firstEnd: [] as number[],
    lastStart: [] as number[],
    lastEnd: [] as number[],
    drift: [] as number[],
  };
  for (const meeting of meetings) {
    const snapshot = await stack.simulator.getMeeting(meeting.nativeId);
    // What was heard in full, in the order it was said (utterances the meeting's end cut off are
    // the script's, not the bot's, and 'missed' means the page never played it to the bot).
    const played = snapshot.utterances
      .filter((u) => u.status === 'played' && u.startedAt && u.endedAt)
      .map((u) => ({ text: u.text, start: Date.parse(u.startedAt!), end: Date.parse(u.endedAt!) }))
      .sort((x, y) => x.start - y.start);
    utterances += played.length;
    references.push(played.map((u) => u.text).join(' '));
    const rows: Array<{
      text: string;
      absolute_start_time: Date;
      absolute_end_time: Date;
      created_at: Date;
    }> = await stack.api.database
      .db('transcript_segments')
      .where({ meeting_id: meeting.meetingId, is_final: true })
      .orderBy('absolute_start_time');
    hypotheses.push(rows.map((row) => row.text).join(' '));
    const timings = utteranceTimings(
      snapshot.utterances,
      rows.map((row) => ({
        text: row.text,
        absoluteStartTime: row.absolute_start_time.toISOString(),
        absoluteEndTime: row.absolute_end_time.toISOString(),
      })),
    );
    const spokenFrom = timings[0]?.spokenAt ?? 0;
    for (const timing of timings) {
      const at = (timing.spokenAt - spokenFrom) / 1000;
      if (at < seconds / 5) {
        offsets.firstStart.push(timing.startOffsetMs);
        offsets.firstEnd.push(timing.endOffsetMs);
      } else if (at >= (seconds * 4) / 5 - 5) {
        offsets.lastStart.push(timing.startOffsetMs);
        offsets.lastEnd.push(timing.endOffsetMs);
      }
    }
    offsets.drift.push(driftPerHourMs(timings, (timing) => timing.startOffsetMs));
    const middle = (played[0]?.start ?? 0) + (seconds * 1000) / 2;
    // Each utterance's segment: the first one overlapping it (within half a second). The lag is
    // from the end of the speech, on the simulator's clock, to the segment's commit.
    for (const utterance of played) {
      const segment = rows.find(
        (row) =>
          row.absolute_start_time.getTime() < utterance.end + 500 &&
          row.absolute_end_time.getTime() > utterance.start - 500,
      );
      if (!segment) {
        missed += 1;
        continue;
      }
      const lag = (segment.created_at.getTime() - utterance.end) / 1000;
      (utterance.end < middle ? lagFirst : lagSecond).push(lag);
      lagTimeline.push({
        at: (utterance.end - (played[0]?.start ?? 0)) / 1000,
        lag,
        heardLate: (segment.absolute_end_time.getTime() - utterance.end) / 1000,
      });
    }
  }
  const wer = wordErrorRate(references.join(' '), hypotheses.join(' ')).rate;
  return { missed, utterances, wer, lagFirst, lagSecond, lagTimeline, offsets };
}
