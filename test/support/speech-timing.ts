/**
 * How a transcript's absolute times line up with when the simulator's voices were heard: each
 * final segment goes to the utterance whose voice it overlaps most (widened a little, since times
 * are what is being checked), and each utterance with segments (in the order spoken) gets the offset of its first
 * segment's start from the voice's start and of its last segment's end from the voice's end.
 * Positive offsets: the transcript says later than the voice was heard.
 */
export interface HeardUtterance {
  id: string;
  text: string;
  speechStartedAt: string | null;
  speechEndedAt: string | null;
}

export interface TimedSegment {
  text: string;
  absoluteStartTime: string;
  absoluteEndTime: string;
}

export interface UtteranceTiming {
  id: string;
  text: string;
  /** Wall time (ms) the voice began. */
  spokenAt: number;
  startOffsetMs: number;
  endOffsetMs: number;
}

/** Segments may be this far off and still be matched to their utterance. */
const MATCH_WIDENING_MS = 2500;

/** The utterances whose voice was heard, with when it began and ended (wall ms). */
function heardVoices(utterances: HeardUtterance[]) {
  return utterances.flatMap((utterance) =>
    utterance.speechStartedAt && utterance.speechEndedAt
      ? [{ utterance, from: Date.parse(utterance.speechStartedAt), to: Date.parse(utterance.speechEndedAt) }]
      : [],
  );
}

export function utteranceTimings(utterances: HeardUtterance[], segments: TimedSegment[]): UtteranceTiming[] {
  const heard = heardVoices(utterances);
  const matched = new Map<string, TimedSegment[]>();
  for (const segment of segments) {
    if (segment.text.trim() === '') continue;
    const start = Date.parse(segment.absoluteStartTime);
    const end = Date.parse(segment.absoluteEndTime);
    let best: (typeof heard)[number] | undefined;
    let bestOverlap = 0;
    for (const candidate of heard) {
      const overlap =
        Math.min(end, candidate.to + MATCH_WIDENING_MS) - Math.max(start, candidate.from - MATCH_WIDENING_MS);
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        best = candidate;
      }
    }
    if (best) matched.set(best.utterance.id, [...(matched.get(best.utterance.id) ?? []), segment]);
  }
  const timings = heard.flatMap(({ utterance, from, to }) => {
    const mine = matched.get(utterance.id);
    if (!mine) return [];
    const start = Math.min(...mine.map((segment) => Date.parse(segment.absoluteStartTime)));
    const end = Math.max(...mine.map((segment) => Date.parse(segment.absoluteEndTime)));
    return [
      {
        id: utterance.id,
        text: utterance.text,
        spokenAt: from,
        startOffsetMs: start - from,
        endOffsetMs: end - to,
      },
    ];
  });
  return timings.sort((a, b) => a.spokenAt - b.spokenAt);
}

/** A segment must overlap a voice this much to count as carrying it. */
const CARRIES_VOICE_MS = 300;

/**
 * Segments that carry two or more voices: turns the recognizer heard as one utterance (no pause
 * between them survived the trip), which puts the first voice's words late and under one speaker.
 */
export function segmentsSpanningTurns(
  utterances: HeardUtterance[],
  segments: TimedSegment[],
): TimedSegment[] {
  const voices = heardVoices(utterances);
  return segments.filter((segment) => {
    const start = Date.parse(segment.absoluteStartTime);
    const end = Date.parse(segment.absoluteEndTime);
    const carried = voices.filter(
      (voice) => Math.min(end, voice.to) - Math.max(start, voice.from) >= CARRIES_VOICE_MS,
    );
    return carried.length >= 2;
  });
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Least-squares slope of the offsets against time, in ms of offset per hour of meeting. */
export function driftPerHourMs(
  timings: UtteranceTiming[],
  offset: (timing: UtteranceTiming) => number,
): number {
  if (timings.length < 2) return Number.NaN;
  const xs = timings.map((timing) => (timing.spokenAt - timings[0]!.spokenAt) / 3_600_000);
  const ys = timings.map(offset);
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  for (let index = 0; index < xs.length; index++) {
    covariance += (xs[index]! - meanX) * (ys[index]! - meanY);
    variance += (xs[index]! - meanX) ** 2;
  }
  return variance === 0 ? Number.NaN : covariance / variance;
}
