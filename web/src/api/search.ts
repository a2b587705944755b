import type { Api } from './client.js';
import type { Meeting, MeetingStatus, Platform } from './types.js';

export interface MeetingPage {
  meetings: Meeting[];
  /** Another page follows. */
  more: boolean;
}

/** One hit of GET /search: a segment, or a meeting's name, participants or notes. */
export interface SearchHit {
  field: 'transcript' | 'name' | 'participants' | 'notes';
  rank: number;
  /** HTML-escaped text with the matches between `<mark>` and `</mark>` (read by snippetParts). */
  snippet: string;
  meeting: {
    id: number;
    platform: Platform;
    native_meeting_id: string;
    status: MeetingStatus;
    name: string | null;
    start_time: string | null;
    end_time: string | null;
  };
  segment: { speaker: string; text: string; start: number; end: number } | null;
}

export interface SearchPage {
  hits: SearchHit[];
  total: number;
  /** Another page follows. */
  more: boolean;
}

/** The meetings list's search: GET /search over the user's transcripts and meetings' name, participants and notes. */
export async function searchMeetings(
  api: Api,
  query: string,
  page: { limit: number; offset: number },
): Promise<SearchPage> {
  const params = new URLSearchParams({
    q: query.trim(),
    limit: String(page.limit),
    offset: String(page.offset),
  });
  const { hits, total } = await api.request<{ hits: SearchHit[]; total: number }>('GET', `/search?${params}`);
  return { hits, total, more: total > page.offset + hits.length };
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/**
 * A snippet as text parts, the matches marked: the server's HTML is never put into the page as
 * HTML; its escapes are undone here and the page escapes the text again as it renders it.
 */
export function snippetParts(snippet: string): Array<{ text: string; match: boolean }> {
  const parts: Array<{ text: string; match: boolean }> = [];
  const unescaped = (text: string) =>
    text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);
  snippet.split(/(<mark>.*?<\/mark>)/s).forEach((piece) => {
    if (!piece) return;
    const marked = /^<mark>(.*)<\/mark>$/s.exec(piece);
    parts.push(
      marked ? { text: unescaped(marked[1]!), match: true } : { text: unescaped(piece), match: false },
    );
  });
  return parts;
}

/** A page of the user's meetings, newest first. */
export async function listMeetings(api: Api, page: { limit: number; offset: number }): Promise<MeetingPage> {
  const { meetings } = await api.request<{ meetings: Meeting[] }>(
    'GET',
    `/meetings?limit=${page.limit + 1}&offset=${page.offset}`,
  );
  return { meetings: meetings.slice(0, page.limit), more: meetings.length > page.limit };
}
