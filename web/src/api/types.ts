/** The API's answers as the app reads them (docs/api.md, docs/openapi.json). */

export type Platform = 'google_meet' | 'teams' | 'zoom';
export type MeetingStatus =
  | 'requested'
  | 'joining'
  | 'awaiting_admission'
  | 'active'
  | 'completed'
  | 'failed';

export const TERMINAL_STATUSES: readonly MeetingStatus[] = ['completed', 'failed'];

export interface MeetingData {
  name?: string;
  notes?: string;
  participants?: string[];
  languages?: string[];
  [member: string]: unknown;
}

export interface Meeting {
  id: number;
  platform: Platform;
  native_meeting_id: string;
  status: MeetingStatus;
  start_time: string | null;
  end_time: string | null;
  bot_container_id: string | null;
  data: MeetingData;
  created_at: string;
}

export interface Recording {
  id: number;
  format: string;
  state: 'recording' | 'ready' | 'failed';
  /** The transcript time the recording's time zero stands for. */
  start: number;
  duration: number;
  size: number;
  created_at: string;
  completed_at: string | null;
  media_url: string;
}

export interface MeetingDetail extends Meeting {
  recordings: Recording[];
}

export interface MeetingEvent {
  at: string;
  from: MeetingStatus | null;
  to: MeetingStatus;
  source: string;
  reason: string | null;
  detail: string | null;
}

/** A segment of the live stream: one with the same segment_id replaces the earlier copy. */
export interface LiveSegment {
  segment_id: string;
  final: boolean;
  start: number;
  end: number;
  text: string;
  speaker: string;
  language: string;
  absolute_start_time: string;
  absolute_end_time: string;
  created_at: string;
}

export interface StatusEvent {
  status: MeetingStatus;
  previous_status: MeetingStatus | null;
  source: string;
  reason: string | null;
  at: string;
}

export interface ChatMessage {
  id: number;
  sender: string;
  text: string;
  is_from_bot: boolean;
  timestamp: number;
  sent_at: string;
  start: number;
}

export function isTerminal(status: MeetingStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The path naming a meeting by platform and id, as /bots, /transcripts and PATCH /meetings take it. */
export function meetingRef(meeting: Pick<Meeting, 'platform' | 'native_meeting_id'>): string {
  return `${encodeURIComponent(meeting.platform)}/${encodeURIComponent(meeting.native_meeting_id)}`;
}
