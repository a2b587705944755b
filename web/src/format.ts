import type { Meeting, MeetingStatus, Platform } from './api/types.js';

const PLATFORM_NAMES: Record<Platform, string> = {
  google_meet: 'Google Meet',
  teams: 'Microsoft Teams',
  zoom: 'Zoom',
};

export function platformName(platform: string): string {
  return PLATFORM_NAMES[platform as Platform] ?? platform;
}

export function statusName(status: MeetingStatus | string): string {
  return status.replaceAll('_', ' ');
}

/** A meeting's name: the one the user gave it, else its platform id. */
export function meetingName(meeting: Pick<Meeting, 'data' | 'native_meeting_id'>): string {
  const name = typeof meeting.data.name === 'string' ? meeting.data.name.trim() : '';
  return name || meeting.native_meeting_id;
}

/** Seconds as 1:05 or 1:02:05. */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/** A length of time in words: 45 s, 12 min, 1 h 5 min. */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How long a meeting's bot has been (or was) in it; undefined before it started. */
export function meetingDuration(
  meeting: Pick<Meeting, 'start_time' | 'end_time'>,
  now = Date.now(),
): number | undefined {
  if (!meeting.start_time) return undefined;
  const end = meeting.end_time ? Date.parse(meeting.end_time) : now;
  return (end - Date.parse(meeting.start_time)) / 1000;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

export function dateTime(iso: string): string {
  return DATE_TIME.format(new Date(iso));
}

export function timeOfDay(iso: string): string {
  return TIME.format(new Date(iso));
}
