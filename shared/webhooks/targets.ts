import type { Platform } from '../contract/platforms.js';
import type { Db } from '../infra/knex.js';

/** Where a meeting's events go: the bot's own endpoint if it has one, else its user's (null: nowhere). */
export interface WebhookTarget {
  meetingId: number;
  userId: number;
  platform: Platform;
  nativeMeetingId: string;
  url: string | null;
  partialSegments: boolean;
}

export type HookedTarget = WebhookTarget & { url: string };

export function isHooked(target: WebhookTarget | undefined): target is HookedTarget {
  return typeof target?.url === 'string';
}

/** The webhook target of each of these meetings that exists (one query, meetings joined to users). */
export async function findWebhookTargets(
  db: Db,
  meetingIds: readonly number[],
): Promise<Map<number, WebhookTarget>> {
  if (meetingIds.length === 0) return new Map();
  const rows: Array<{
    id: number;
    user_id: number;
    platform: Platform;
    native_meeting_id: string;
    meeting_webhook_url: string | null;
    meeting_partial: boolean;
    user_webhook_url: string | null;
    user_partial: boolean;
  }> = await db('meetings as m')
    .join('users as u', 'u.id', 'm.user_id')
    .whereIn('m.id', meetingIds)
    .select(
      'm.id',
      'm.user_id',
      'm.platform',
      'm.native_meeting_id',
      'm.webhook_url as meeting_webhook_url',
      'm.webhook_partial_segments as meeting_partial',
      'u.webhook_url as user_webhook_url',
      'u.webhook_partial_segments as user_partial',
    );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        meetingId: row.id,
        userId: row.user_id,
        platform: row.platform,
        nativeMeetingId: row.native_meeting_id,
        url: row.meeting_webhook_url ?? row.user_webhook_url,
        partialSegments: row.meeting_webhook_url ? row.meeting_partial : row.user_partial,
      },
    ]),
  );
}

/** The secret that signs a meeting's deliveries now: the bot's own if it was given one, else the user's. */
export async function signingSecretFor(db: Db, meetingId: number): Promise<string | null> {
  const row: { secret: string | null } | undefined = await db('meetings as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.id', meetingId)
    .first(db.raw('coalesce(m.webhook_secret, u.webhook_secret) as secret'));
  return row?.secret ?? null;
}
