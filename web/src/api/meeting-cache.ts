import type { Meeting } from './types.js';

/**
 * The meetings the list last showed, by id: opening one starts its live stream at once, beside the
 * read of its details, instead of after it (the stream is named by platform and meeting id).
 */
const known = new Map<number, Meeting>();

export function rememberMeetings(meetings: readonly Meeting[]): void {
  for (const meeting of meetings) known.set(meeting.id, meeting);
}

export function knownMeeting(id: number): Meeting | undefined {
  return known.get(id);
}
