import type { ParticipantScript, UtteranceScript, Voice } from './schema.js';
import { VOICES } from './schema.js';

export interface PlannedParticipant {
  id: string;
  name: string;
  voice: Voice;
  joinAt: number;
  leaveAt: number | undefined;
}

export interface PlannedUtterance {
  id: string;
  participantId: string;
  /** What is said: the script's text, or a recording's transcript. */
  text: string;
  /** The recording played instead of the voice, or null. */
  clip: string | null;
  voice: Voice;
  at: number;
  durationSeconds: number;
}

/** A message a participant writes in the meeting chat. */
export interface PlannedChatMessage {
  id: string;
  participantId: string;
  text: string;
  at: number;
}

export type TimelineEvent =
  | { at: number; kind: 'join'; participantId: string }
  | { at: number; kind: 'chat'; chatId: string }
  | { at: number; kind: 'leave'; participantId: string }
  | { at: number; kind: 'speak'; utteranceId: string }
  | { at: number; kind: 'end' };

/** Gives each participant its own voice while distinct ones remain, then cycles. */
export function assignVoices(participants: readonly { voice?: Voice | undefined }[]): Voice[] {
  const taken = new Set(participants.flatMap((p) => (p.voice ? [p.voice] : [])));
  const free = VOICES.filter((voice) => !taken.has(voice));
  let next = 0;
  return participants.map((p) => {
    if (p.voice) return p.voice;
    const pool = free.length > 0 ? free : VOICES;
    const voice = pool[next % pool.length]!;
    next += 1;
    return voice;
  });
}

export function planParticipants(scripts: readonly ParticipantScript[]): PlannedParticipant[] {
  const voices = assignVoices(scripts);
  return scripts.map((script, index) => ({
    id: `p${index + 1}`,
    name: script.name,
    voice: voices[index]!,
    joinAt: script.joinAt,
    leaveAt: script.leaveAt,
  }));
}

/** Utterances in start order, with ids stable for a given script. */
export function planUtterances(
  scripts: readonly ParticipantScript[],
  participants: readonly PlannedParticipant[],
  durationOf: (voice: Voice, utterance: UtteranceScript) => number,
  textOf: (utterance: UtteranceScript) => string = (utterance) => utterance.text ?? utterance.clip ?? '',
): PlannedUtterance[] {
  const planned = scripts.flatMap((script, pIndex) => {
    const participant = participants[pIndex]!;
    return script.utterances.map((utterance) => ({
      participantId: participant.id,
      text: textOf(utterance),
      clip: utterance.clip ?? null,
      voice: participant.voice,
      at: utterance.at,
      durationSeconds: durationOf(participant.voice, utterance),
    }));
  });
  planned.sort((a, b) => a.at - b.at || a.participantId.localeCompare(b.participantId));
  return planned.map((utterance, index) => ({ id: `u${index + 1}`, ...utterance }));
}

/** Chat messages in the order they are written, with ids stable for a given script. */
export function planChat(
  scripts: readonly Pick<ParticipantScript, 'chat'>[],
  participants: readonly PlannedParticipant[],
): PlannedChatMessage[] {
  const planned = scripts.flatMap((script, pIndex) =>
    script.chat.map((message) => ({
      participantId: participants[pIndex]!.id,
      text: message.text,
      at: message.at,
    })),
  );
  planned.sort((a, b) => a.at - b.at || a.participantId.localeCompare(b.participantId));
  return planned.map((message, index) => ({ id: `c${index + 1}`, ...message }));
}

/**
 * Problems a script can't play out: someone speaking while absent, or talking over themselves.
 * Durations come from the synthesized audio, so this runs after synthesis.
 */
export function findTimelineProblems(
  participants: readonly PlannedParticipant[],
  utterances: readonly PlannedUtterance[],
  chat: readonly PlannedChatMessage[] = [],
): string[] {
  const problems: string[] = [];
  for (const participant of participants) {
    for (const message of chat.filter((m) => m.participantId === participant.id)) {
      const gone = participant.leaveAt !== undefined && message.at >= participant.leaveAt;
      if (message.at < participant.joinAt || gone) {
        problems.push(`${participant.name}: writes in chat at ${message.at}s while not in the call`);
      }
    }
    if (participant.leaveAt !== undefined && participant.leaveAt <= participant.joinAt) {
      problems.push(`${participant.name}: leaveAt must be after joinAt`);
    }
    const own = utterances.filter((u) => u.participantId === participant.id);
    let previousEnd = Number.NEGATIVE_INFINITY;
    for (const utterance of own) {
      const end = utterance.at + utterance.durationSeconds;
      if (utterance.at < participant.joinAt) {
        problems.push(
          `${participant.name}: speaks at ${utterance.at}s before joining at ${participant.joinAt}s`,
        );
      }
      if (participant.leaveAt !== undefined && end > participant.leaveAt) {
        problems.push(
          `${participant.name}: "${utterance.text}" ends at ${end.toFixed(2)}s, after leaving at ${participant.leaveAt}s`,
        );
      }
      if (utterance.at < previousEnd) {
        problems.push(`${participant.name}: "${utterance.text}" starts before their previous utterance ends`);
      }
      previousEnd = Math.max(previousEnd, end);
    }
  }
  return problems;
}

/** Everything that happens after media starts, in order; joins at 0 are the people already there. */
export function buildTimeline(
  participants: readonly PlannedParticipant[],
  utterances: readonly PlannedUtterance[],
  endAt: number | undefined,
  chat: readonly PlannedChatMessage[] = [],
): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  for (const participant of participants) {
    if (participant.joinAt > 0)
      events.push({ at: participant.joinAt, kind: 'join', participantId: participant.id });
    if (participant.leaveAt !== undefined) {
      events.push({ at: participant.leaveAt, kind: 'leave', participantId: participant.id });
    }
  }
  for (const utterance of utterances)
    events.push({ at: utterance.at, kind: 'speak', utteranceId: utterance.id });
  for (const message of chat) events.push({ at: message.at, kind: 'chat', chatId: message.id });
  if (endAt !== undefined) events.push({ at: endAt, kind: 'end' });
  // At equal times joins come first and leaves/end last, so a join+speak at t=5 works.
  const rank: Record<TimelineEvent['kind'], number> = { join: 0, speak: 1, chat: 1, leave: 2, end: 3 };
  return events.sort((a, b) => a.at - b.at || rank[a.kind] - rank[b.kind]);
}
