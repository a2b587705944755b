import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { Meeting } from '../api/types.js';
import { Outcome, useAction } from './useAction.js';

/** Participants as typed: one per line or separated by commas, blanks dropped. */
export function participantsOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

export function EditDetails(props: {
  api: Api;
  meeting: Meeting;
  meetingRef: string;
  onSaved(meeting: Meeting): void;
}) {
  const { data } = props.meeting;
  const [name, setName] = useState(typeof data.name === 'string' ? data.name : '');
  const [notes, setNotes] = useState(typeof data.notes === 'string' ? data.notes : '');
  const [participants, setParticipants] = useState(
    Array.isArray(data.participants) ? data.participants.join('\n') : '',
  );
  const action = useAction();

  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const people = participantsOf(participants);
      const updated = await props.api.request<Meeting>('PATCH', `/meetings/${props.meetingRef}`, {
        data: {
          name: name.trim() ? name.trim() : null,
          notes: notes.trim() ? notes : null,
          participants: people.length > 0 ? people : null,
        },
      });
      props.onSaved({ ...props.meeting, data: updated.data });
      return 'Saved.';
    });
  };

  return (
    <section class="card" aria-labelledby="edit-title">
      <h2 id="edit-title">Details</h2>
      <form onSubmit={save} noValidate>
        <label for="edit-name">Name</label>
        <input
          id="edit-name"
          maxLength={1000}
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <label for="edit-notes">Notes</label>
        <textarea
          id="edit-notes"
          rows={4}
          value={notes}
          onInput={(event) => setNotes(event.currentTarget.value)}
        />
        <label for="edit-participants">Participants</label>
        <textarea
          id="edit-participants"
          rows={3}
          aria-describedby="edit-participants-hint"
          value={participants}
          onInput={(event) => setParticipants(event.currentTarget.value)}
        />
        <p id="edit-participants-hint" class="hint">
          One per line, or separated by commas.
        </p>
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save details'}
        </button>
        <Outcome action={action} />
      </form>
    </section>
  );
}
