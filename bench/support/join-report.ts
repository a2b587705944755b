/** What a bench prints of how its bots joined: when each reached the lobby and the call, and why some did not. */
import type { TransitionRecord } from '../../shared/meetings/transitions-store.js';
import type { FollowedBotLog } from './bot-log.js';

export type MeetingTransitions = Array<{ meetingId: number; transitions: TransitionRecord[] }>;

/** Lines of a bot's log shown when it did not reach the call. */
const NOT_ADMITTED_LOG_LINES = 25;

/** Why each bot that did not reach the call ended where it did: its meeting's transitions and log. */
export function reportNotAdmitted(meetings: MeetingTransitions, logs: Array<FollowedBotLog | null>): void {
  meetings.forEach(({ meetingId, transitions }, index) => {
    if (transitions.some((t) => t.to === 'active')) return;
    const path = transitions
      .map((t) => `${t.to}${t.reason ? ` (${t.reason}${t.detail ? `: ${t.detail}` : ''})` : ''}`)
      .join(' → ');
    console.log(`  not admitted: meeting ${meetingId}: ${path}`);
    const tail = logs[index]?.lines.slice(-NOT_ADMITTED_LOG_LINES) ?? [];
    for (const line of tail) console.log(`    ${line}`);
  });
}

/** When each bot reached the lobby and the call, from the first bot's request (s). */
export function reportJoins(meetings: MeetingTransitions): void {
  let first: number | null = null;
  const joins: string[] = [];
  for (const { transitions } of meetings) {
    first ??= transitions[0]?.createdAt.getTime() ?? null;
    const at = (status: string) => {
      const found = transitions.find((t) => t.to === status);
      return found && first !== null ? `${((found.createdAt.getTime() - first) / 1000).toFixed(1)}` : '–';
    };
    joins.push(`${at('awaiting_admission')} / ${at('active')}`);
  }
  console.log(`  joins (lobby / call, s after the first request): ${joins.join(', ')}`);
}
