import type { SearchHit, SearchPage } from '../api/search.js';
import { snippetParts } from '../api/search.js';
import { clock, dateTime } from '../format.js';
import { meetingHref } from '../router.js';

const FIELD_NAMES: Record<Exclude<SearchHit['field'], 'transcript'>, string> = {
  name: 'Meeting name',
  participants: 'Participants',
  notes: 'Notes',
};

/** Where in the meeting a hit is: the speaker and time of a segment, or the meeting data it matched. */
function hitPlace(hit: SearchHit): string {
  return hit.segment
    ? `${hit.segment.speaker} at ${clock(hit.segment.start)}`
    : FIELD_NAMES[hit.field as 'name'];
}

/** The search's hits, best first: the meeting, where in it, and the snippet with its matches marked. */
export function SearchHits(props: { page: SearchPage }) {
  const { hits, total } = props.page;
  if (hits.length === 0) return <p>Nothing matches.</p>;
  return (
    <>
      <p class="hint" aria-live="polite">
        {total === 1 ? '1 match' : `${total} matches`}, best first
      </p>
      <ol class="hits">
        {hits.map((hit) => (
          <li
            key={`${hit.meeting.id}-${hit.field}-${hit.segment?.start ?? ''}`}
            data-meeting-id={hit.meeting.id}
          >
            <a href={meetingHref(hit.meeting.id)}>{hit.meeting.name || hit.meeting.native_meeting_id}</a>
            <span class="hint">
              {' · '}
              {hitPlace(hit)}
              {hit.meeting.start_time && <> · {dateTime(hit.meeting.start_time)}</>}
            </span>
            <p class="snippet">
              {snippetParts(hit.snippet).map((part, index) =>
                part.match ? <mark key={index}>{part.text}</mark> : part.text,
              )}
            </p>
          </li>
        ))}
      </ol>
    </>
  );
}
