import type { Platform } from './api/types.js';

export interface MeetingLink {
  platform: Platform;
  native_meeting_id: string;
  passcode?: string;
  meeting_url: string;
}

const MEET_PATH = /^\/([a-z]{3}-[a-z]{4}-[a-z]{3})\/?$/;
const TEAMS_PATH = /^\/meet\/(\d{1,20})\/?$/;
const ZOOM_PATH = /^\/(?:j\/(\d{9,11})|wc\/(\d{9,11})\/join)$/;

/**
 * A pasted meeting link → what POST /bots takes. Only the link's shape is read here (a Meet id
 * path, Teams' /meet/{id}?p={passcode}, or Zoom's /j/{id} or /wc/{id}/join with an optional pwd); which hosts are allowed is the API's to say, and its
 * answer is shown when it refuses one. Nothing is fetched.
 */
export function parseMeetingLink(text: string): MeetingLink | { error: string } {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Paste the meeting link' };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return { error: 'This is not a link' };
  }
  const meet = MEET_PATH.exec(url.pathname);
  if (meet) return { platform: 'google_meet', native_meeting_id: meet[1]!, meeting_url: url.toString() };
  const teams = TEAMS_PATH.exec(url.pathname);
  if (teams) {
    const passcode = url.searchParams.get('p') ?? undefined;
    if (!passcode) return { error: 'A Teams link needs its passcode (the p=… part of the link)' };
    return { platform: 'teams', native_meeting_id: teams[1]!, passcode, meeting_url: url.toString() };
  }
  const zoom = ZOOM_PATH.exec(url.pathname);
  if (zoom) {
    const passcode = url.searchParams.get('pwd') || undefined;
    const native_meeting_id = (zoom[1] ?? zoom[2])!;
    return {
      platform: 'zoom',
      native_meeting_id,
      ...(passcode && { passcode }),
      meeting_url: url.toString(),
    };
  }
  return {
    error:
      'Not a Google Meet, Microsoft Teams or Zoom meeting link (…/abc-defg-hij, …/meet/123…?p=… or …/j/123…)',
  };
}
