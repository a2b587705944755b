import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser, lockUserForUpdate } from '../../../shared/accounts/users-store.js';
import type { Knex } from '../../../shared/infra/knex.js';
import { insertMeeting, moveMeetingStatus } from '../../../shared/meetings/store.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

/**
 * The locks writers take on a user's or a meeting's row must not wait for transactions that only
 * insert rows referencing it (the ingest's batches of segments, participant events, recordings and
 * webhook deliveries): their foreign-key checks hold KEY SHARE on the row until they commit, and a
 * FOR UPDATE waiting behind them deadlocked with the ingest at 1,000 meetings (docs/benchmarks.md).
 */
let database: TestDatabase;
let userId: number;
let meetingId: number;

beforeAll(async () => {
  database = await createTestDatabase();
  userId = (await insertUser(database.db, { email: 'locks@example.com', maxConcurrentBots: 10 })).id;
  const meeting = await insertMeeting(database.db, {
    userId,
    platform: 'google_meet',
    nativeMeetingId: 'abc-defg-hij',
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
    passcode: null,
    botName: 'Bot',
    language: null,
    task: 'transcribe',
  });
  meetingId = meeting.id;
});

afterAll(async () => {
  await database.drop();
});

/** Runs `work` in a transaction that gives up on any lock after a second, while another holds KEY SHARE on both rows. */
async function whileReferenced<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const holder = await database.db.transaction();
  try {
    // What inserting a row that references them does (the foreign-key checks).
    await holder.raw('SELECT 1 FROM users WHERE id = ? FOR KEY SHARE', [userId]);
    await holder.raw('SELECT 1 FROM meetings WHERE id = ? FOR KEY SHARE', [meetingId]);
    return await database.db.transaction(async (trx) => {
      await trx.raw("SET LOCAL lock_timeout = '1s'");
      return work(trx);
    });
  } finally {
    await holder.rollback();
  }
}

describe('row locks beside transactions that insert rows referencing the row', () => {
  it("a bot's creation locks its user without waiting for them", async () => {
    const user = await whileReferenced((trx) => lockUserForUpdate(trx, userId));
    expect(user?.id).toBe(userId);
  });

  it('a status change locks its meeting without waiting for them', async () => {
    const moved = await whileReferenced((trx) => moveMeetingStatus(trx, meetingId, { to: 'joining' }));
    expect(moved?.from).toBe('requested');
  });

  it("a user's deletion does wait for them: it takes the whole row", async () => {
    await expect(
      whileReferenced((trx) => lockUserForUpdate(trx, userId, { deleting: true })),
    ).rejects.toThrow(/lock timeout/);
  });
});
