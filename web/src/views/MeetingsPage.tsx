import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { Meeting } from '../api/types.js';
import { MeetingList } from './MeetingList.js';
import { SendBot } from './SendBot.js';

export function MeetingsPage(props: { api: Api }) {
  // A bot just sent: shown at the top at once, before the next read of the list includes it.
  const [sent, setSent] = useState<Meeting>();
  useEffect(() => {
    document.title = 'Meetings · Meetbot';
  }, []);
  return (
    <div class="columns">
      <SendBot api={props.api} onSent={setSent} />
      <MeetingList api={props.api} justSent={sent} />
    </div>
  );
}
