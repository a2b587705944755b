import type { MeetingStatus } from '../api/types.js';
import { statusName } from '../format.js';

/** A status as words (never colour alone), coloured by its kind. */
export function StatusBadge(props: { status: MeetingStatus }) {
  return <span class={`status status-${props.status}`}>{statusName(props.status)}</span>;
}
