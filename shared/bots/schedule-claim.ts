import { lockUserForUpdate } from '../accounts/users-store.js';
import type { Knex } from '../infra/knex.js';
import { claimLaunch } from '../meetings/launch-store.js';
import { countLiveMeetings } from '../meetings/live-store.js';
import type { MeetingRecord } from '../meetings/store.js';

export type ScheduledClaim =
  | { claimed: MeetingRecord }
  | { full: { running: number; limit: number } }
  | { lost: true };

/**
 * Claims a scheduled meeting's launch when its time comes, if the user's concurrent-bot limit has
 * room then. The count and the claim run in one transaction under the user's row lock (as POST /bots
 * takes it), so two bots due at once on two workers never overshoot the limit. `lost`: another
 * launch claimed it, or it ended.
 */
export async function claimScheduledLaunch(
  db: Knex,
  meeting: Pick<MeetingRecord, 'id' | 'userId'>,
  claim: { sessionId: string; workerId: string },
): Promise<ScheduledClaim> {
  return db.transaction(async (trx) => {
    const user = await lockUserForUpdate(trx, meeting.userId);
    if (!user) return { lost: true } as const;
    const running = await countLiveMeetings(trx, meeting.userId, meeting.id);
    if (running >= user.maxConcurrentBots) return { full: { running, limit: user.maxConcurrentBots } };
    const claimed = await claimLaunch(trx, meeting.id, claim);
    return claimed ? { claimed } : ({ lost: true } as const);
  });
}
