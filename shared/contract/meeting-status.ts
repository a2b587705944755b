export const MEETING_STATUSES = [
  'requested',
  'joining',
  'awaiting_admission',
  'active',
  'completed',
  'failed',
] as const;
export type MeetingStatus = (typeof MEETING_STATUSES)[number];

export const TERMINAL_STATUSES: readonly MeetingStatus[] = ['completed', 'failed'];
export const NON_TERMINAL_STATUSES: readonly MeetingStatus[] = [
  'requested',
  'joining',
  'awaiting_admission',
  'active',
];

export function isTerminal(status: MeetingStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

const PROGRESSION: readonly MeetingStatus[] = ['requested', 'joining', 'awaiting_admission', 'active'];

/**
 * The statuses a meeting may be in for a move to `to` to be allowed: forward only, terminal states final.
 * `completed` and `failed` are reachable from every non-terminal state.
 */
export function allowedPredecessors(to: MeetingStatus): readonly MeetingStatus[] {
  if (isTerminal(to)) return NON_TERMINAL_STATUSES;
  const index = PROGRESSION.indexOf(to);
  return PROGRESSION.slice(0, index);
}

export function canTransition(from: MeetingStatus, to: MeetingStatus): boolean {
  return allowedPredecessors(to).includes(from);
}

export const TRANSCRIPTION_TASKS = ['transcribe', 'translate'] as const;
export type TranscriptionTask = (typeof TRANSCRIPTION_TASKS)[number];
