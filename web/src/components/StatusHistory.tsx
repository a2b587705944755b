import type { MeetingEvent } from '../api/types.js';
import { statusName, timeOfDay } from '../format.js';

/** Every status change with its time, source, reason and detail, oldest first. */
export function StatusHistory(props: { events: MeetingEvent[] }) {
  return (
    <section class="card" aria-labelledby="history-title">
      <h2 id="history-title">Status history</h2>
      {props.events.length === 0 ? (
        <p>No status changes yet.</p>
      ) : (
        <ol class="history">
          {props.events.map((event, index) => (
            <li key={index}>
              <time dateTime={event.at}>{timeOfDay(event.at)}</time>{' '}
              <strong>{event.from === event.to ? statusName(event.to) : `→ ${statusName(event.to)}`}</strong>{' '}
              <span class="hint">by {event.source}</span>
              {event.reason && <span class="reason"> · {event.reason.replaceAll('_', ' ')}</span>}
              {event.detail && <pre class="detail">{event.detail}</pre>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
