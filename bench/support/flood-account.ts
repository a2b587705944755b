/**
 * The accounts of bench/search-flood.ts: a user with a large account loaded straight into the tables
 * through the real triggers, another with meetings only, and an API key for each.
 */
import { findOrCreateUser, issueApiKey } from '../../shared/accounts/service.js';
import type { Knex } from '../../shared/infra/knex.js';
import { MeetingTalk, seededRandom } from './meeting-text.js';
import { SegmentBatches } from './segment-batches.js';

/** The user with this email (created when absent) and a new API key of theirs. */
export async function userWithKey(database: Knex, email: string): Promise<{ id: number; token: string }> {
  const { user } = await findOrCreateUser(database, { email, maxConcurrentBots: 10 }, 3);
  const { token } = await issueApiKey(database, user.id, 'bench');
  return { id: user.id, token };
}

export interface FloodAccountSize {
  meetings: number;
  segments: number;
}

/** The flooding user's meetings over two years, then their segments, a meeting at a time. */
export async function loadFloodAccount(
  database: Knex,
  size: FloodAccountSize,
  log: (line: string) => void,
): Promise<void> {
  const random = seededRandom(48);
  const talk = new MeetingTalk(random);
  const { user } = await findOrCreateUser(database, { email: 'flood@example.com', maxConcurrentBots: 10 }, 3);
  const { user: other } = await findOrCreateUser(
    database,
    { email: 'other@example.com', maxConcurrentBots: 10 },
    3,
  );
  const started = performance.now();
  const weights = Array.from({ length: size.meetings }, () => 0.15 + random() ** 2 * 3);
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const counts = weights.map((weight) => Math.max(1, Math.round((weight / weightSum) * size.segments)));
  const first = Date.UTC(2025, 0, 6, 8);
  const span = 700 * 86_400_000;
  const meetings: Array<{ id: number; participants: string[]; start: number }> = [];
  const meetingRows = [];
  // The other user: 200 meetings without segments (what GET /meetings reads is the same).
  for (let index = 0; index < size.meetings + 200; index += 1) {
    const own = index < size.meetings;
    const participants = talk.participants();
    const start = first + Math.floor(((own ? index : index - size.meetings) / size.meetings) * span);
    meetingRows.push({
      user_id: own ? user.id : other.id,
      platform: 'google_meet',
      native_meeting_id: meetId(index),
      status: 'completed',
      meeting_url: `https://meet.google.com/${meetId(index)}`,
      bot_name: 'Bench',
      language: 'en',
      data: JSON.stringify({ name: talk.meetingName(), participants }),
      start_time: new Date(start),
      end_time: new Date(start + (counts[index] ?? 1) * 5_000),
      created_at: new Date(start - 60_000),
    });
    if (own) meetings.push({ id: 0, participants, start });
  }
  for (let offset = 0; offset < meetingRows.length; offset += 1000) {
    const ids: Array<{ id: number }> = await database('meetings')
      .insert(meetingRows.slice(offset, offset + 1000))
      .returning('id');
    ids.forEach((inserted, index) => {
      if (offset + index < size.meetings) meetings[offset + index]!.id = inserted.id;
    });
  }

  const segments = new SegmentBatches(database, (written, batchSize) => {
    if (written % 200_000 < batchSize) log(`  ${written} segments, ${seconds(started)}`);
  });
  for (const [index, meeting] of meetings.entries()) {
    let at = 0;
    for (let number = 0; number < counts[index]!; number += 1) {
      const text = talk.sentence('en');
      const duration = 1 + text.length / 15;
      await segments.add({
        meetingId: meeting.id,
        segmentId: `seg-${number}`,
        start: at,
        end: at + duration,
        text,
        speaker: meeting.participants[Math.floor(random() * meeting.participants.length)]!,
        language: 'en',
        absoluteStart: new Date(meeting.start + at * 1000).toISOString(),
        absoluteEnd: new Date(meeting.start + (at + duration) * 1000).toISOString(),
      });
      at += duration + random() * 2;
    }
  }
  await segments.flush();
  log(
    `loaded ${size.meetings} meetings, ${segments.written} segments in ${seconds(started)} (through the triggers)`,
  );
  const vacuumed = performance.now();
  await database.raw('VACUUM ANALYZE');
  log(`VACUUM ANALYZE ${seconds(vacuumed)}`);
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

/** A distinct Google Meet id (xxx-xxxx-xxx) for each number. */
function meetId(n: number): string {
  let letters = '';
  for (let rest = n, index = 0; index < 10; index += 1, rest = Math.floor(rest / 26)) {
    letters += String.fromCharCode(97 + (rest % 26));
  }
  return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}
