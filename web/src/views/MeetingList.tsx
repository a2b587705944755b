import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { rememberMeetings } from '../api/meeting-cache.js';
import { listMeetings, type MeetingPage, type SearchPage, searchMeetings } from '../api/search.js';
import type { Meeting } from '../api/types.js';
import { StatusBadge } from '../components/StatusBadge.js';
import { SearchHits } from '../components/SearchHits.js';
import { usePolling } from '../components/usePolling.js';
import { dateTime, duration, meetingDuration, meetingName, platformName } from '../format.js';
import { meetingHref } from '../router.js';

const PAGE_SIZE = 20;
/** How often the list is read again, so statuses move without a reload (a search reads more: less often). */
const REFRESH_MS = 2000;
const SEARCH_REFRESH_MS = 5000;

export function MeetingList(props: { api: Api; justSent: Meeting | undefined }) {
  const [query, setQuery] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<MeetingPage>();
  const [found, setFound] = useState<SearchPage>();
  const [error, setError] = useState<string>();
  const [now, setNow] = useState(Date.now());

  useEffect(() => setOffset(0), [query]);
  usePolling(
    async () => {
      try {
        if (query.trim()) {
          setFound(await searchMeetings(props.api, query, { limit: PAGE_SIZE, offset }));
        } else {
          const read = await listMeetings(props.api, { limit: PAGE_SIZE, offset });
          rememberMeetings(read.meetings);
          setPage(read);
          setFound(undefined);
        }
        setNow(Date.now());
        setError(undefined);
      } catch (failure) {
        setError(`Could not read the meetings: ${(failure as Error).message}`);
      }
    },
    query.trim() ? SEARCH_REFRESH_MS : REFRESH_MS,
    [props.api, query, offset, props.justSent?.id],
  );

  const searching = query.trim() !== '';
  let meetings = page?.meetings ?? [];
  const sent = props.justSent;
  if (sent && offset === 0 && !query.trim() && !meetings.some((meeting) => meeting.id === sent.id))
    meetings = [sent, ...meetings];

  return (
    <section class="card grow" aria-labelledby="meetings-title">
      <h1 id="meetings-title">Meetings</h1>
      <search class="search">
        <label for="meeting-search">Search meetings</label>
        <input
          id="meeting-search"
          type="search"
          placeholder="Words said, a name, participants or notes"
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
        />
      </search>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {searching && !found && !error && <p aria-busy="true">Searching…</p>}
      {searching && found && <SearchHits page={found} />}
      {!searching && !page && !error && <p aria-busy="true">Loading…</p>}
      {!searching && page && meetings.length === 0 && <p>No meetings yet: send a bot to one.</p>}
      {!searching && meetings.length > 0 && (
        <table class="meetings">
          <caption class="visually-hidden">Your meetings, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Meeting</th>
              <th scope="col">Status</th>
              <th scope="col">Platform</th>
              <th scope="col">Created</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {meetings.map((meeting) => {
              const length = meetingDuration(meeting, now);
              return (
                <tr key={meeting.id} data-meeting-id={meeting.id}>
                  <th scope="row">
                    <a href={meetingHref(meeting.id)}>{meetingName(meeting)}</a>
                  </th>
                  <td>
                    <StatusBadge status={meeting.status} />
                  </td>
                  <td>{platformName(meeting.platform)}</td>
                  <td>
                    <time dateTime={meeting.created_at}>{dateTime(meeting.created_at)}</time>
                  </td>
                  <td>{length === undefined ? '—' : duration(length)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages">
        <button
          type="button"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
        >
          Newer
        </button>
        <span>Page {offset / PAGE_SIZE + 1}</span>
        <button
          type="button"
          disabled={!(searching ? found?.more : page?.more)}
          onClick={() => setOffset(offset + PAGE_SIZE)}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
