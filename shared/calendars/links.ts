import { type MeetingLink, parseMeetingLink } from '../contract/platforms.js';
import type { FeedOccurrence } from './ics.js';

/** The reason of an occurrence without any meeting link (which a feed's notes leave out). */
export const NO_MEETING_LINK = 'no Google Meet, Teams or Zoom link';

export type LinkSearch = { ok: true; link: MeetingLink } | { ok: false; reason: string };

const URL_PATTERN = /https?:\/\/[^\s<>"'\\`]+/gi;

/** The URLs written in a text, without the punctuation and markup that often close them. */
export function urlsIn(text: string): string[] {
  const decoded = text.replace(/&amp;/gi, '&');
  return [...decoded.matchAll(URL_PATTERN)].map((match) => match[0].replace(/[).,;:!?\]}>*|]+$/, ''));
}

/**
 * Teams invitations carry a `meetup-join` link that does not name the meeting; the numeric meeting
 * ID and passcode printed beside it do ("Meeting ID: 123 456 789 012", "Passcode: aB3cD4").
 */
function teamsIdAndPasscode(text: string): { id: string; passcode: string } | undefined {
  const id = /Meeting ID:\s*([0-9][0-9 ]{5,30}[0-9])/i.exec(text)?.[1]?.replace(/ /g, '');
  const passcode = /Passcode:\s*([A-Za-z0-9]{1,64})/i.exec(text)?.[1];
  return id && passcode ? { id, passcode } : undefined;
}

/**
 * The meeting link of an occurrence, by the rules POST /bots applies to `meeting_url`
 * (parseMeetingLink: Meet, Teams and Zoom hosts, and the operator's EXTRA_MEETING_ORIGINS such as the
 * simulator's). Looked for in the conference fields first, then URL, LOCATION and DESCRIPTION; the
 * first link that names a meeting wins. Pure.
 */
export function findMeetingLink(occurrence: FeedOccurrence, extraOrigins: readonly string[]): LinkSearch {
  const texts = [...occurrence.conference, occurrence.url, occurrence.location, occurrence.description];
  let meetupJoin = false;
  let zoom = false;
  for (const text of texts) {
    for (const candidate of urlsIn(text)) {
      const parsed = parseMeetingLink(candidate, extraOrigins);
      if (parsed.ok) return parsed;
      const host = safeHost(candidate);
      if (host && /(^|\.)teams\.(microsoft|live)\.com$/.test(host) && /\/l\/meetup-join\//.test(candidate)) {
        meetupJoin = true;
      }
      if (host && /(^|\.)zoom\.us$/.test(host)) zoom = true;
    }
  }
  if (meetupJoin) {
    const teams = teamsIdAndPasscode(texts.join('\n'));
    if (teams) {
      const parsed = parseMeetingLink(
        `https://teams.microsoft.com/meet/${teams.id}?p=${encodeURIComponent(teams.passcode)}`,
        extraOrigins,
      );
      if (parsed.ok) return parsed;
    }
    return {
      ok: false,
      reason: 'a Teams meetup-join link without the meeting ID and passcode beside it',
    };
  }
  if (zoom) return { ok: false, reason: 'a Zoom link that names no meeting (/j/{id} or /wc/{id}/join)' };
  return { ok: false, reason: NO_MEETING_LINK };
}

function safeHost(candidate: string): string | undefined {
  try {
    return new URL(candidate).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Whether the occurrence carries the marker word (`#notetaker`) in its title, description or
 * location: case-insensitive, not inside a longer word (`#notetakers` does not count).
 */
export function hasMarker(occurrence: FeedOccurrence, marker: string): boolean {
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}(?=$|[^\\p{L}\\p{N}_])`, 'iu');
  return [occurrence.summary, occurrence.description, occurrence.location].some((text) => pattern.test(text));
}
