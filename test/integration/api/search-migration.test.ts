import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../migrations/index.js';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { migrateToLatest } from '../../../shared/infra/migrate.js';
import { searchTranscripts } from '../../../shared/search/service.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

const SEARCH = '20261127000011_search';

/** Knex's migration source over the first `count` migrations. */
function firstMigrations(count: number): Knex.MigrationSource<readonly [string, Knex.Migration]> {
  return {
    getMigrations: async () => MIGRATIONS.slice(0, count),
    getMigrationName: ([name]) => name,
    getMigration: async ([, migration]) => migration,
  };
}

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(undefined, { migrate: false });
});
afterAll(() => database.drop());

describe('the search migration', () => {
  it('indexes the meetings and segments stored before it, and goes down and up again', async () => {
    const { db } = database;
    const before = MIGRATIONS.findIndex(([name]) => name === SEARCH);
    expect(before).toBeGreaterThan(0);
    await db.migrate.latest({ migrationSource: firstMigrations(before) });

    const user = await insertUser(db, { email: 'old@example.com', maxConcurrentBots: 3 });
    const [meeting] = await db('meetings')
      .insert({
        user_id: user.id,
        platform: 'teams',
        native_meeting_id: '123',
        status: 'completed',
        meeting_url: 'https://example.com/123',
        bot_name: 'Notes',
        language: 'de',
        data: JSON.stringify({ name: 'Alte Besprechung', participants: ['Ann Lee'] }),
        start_time: new Date('2026-01-05T10:00:00Z'),
      })
      .returning('id');
    await db('transcript_segments').insert({
      meeting_id: meeting.id,
      segment_id: 's1',
      start_seconds: 0,
      end_seconds: 2,
      text: 'Die Häuser sind verkauft.',
      speaker: 'Ann Lee',
      language: null,
      absolute_start_time: new Date('2026-01-05T10:00:01Z'),
      absolute_end_time: new Date('2026-01-05T10:00:03Z'),
      is_final: true,
    });

    // Up to the search migration only, so that rolling it back below takes back no later one.
    const [, ran] = await db.migrate.latest({ migrationSource: firstMigrations(before + 1) });
    expect(ran).toEqual([SEARCH]);
    const segment = await db('transcript_segments').first('user_id', 'search_config', 'search_vector');
    expect(segment).toEqual({
      user_id: user.id,
      search_config: 'german',
      search_vector: "'haus':2 'verkauft':4",
    });
    expect(await db('search_user_configs').select('user_id', 'config')).toEqual([
      { user_id: user.id, config: 'german' },
    ]);
    const query = { limit: 10, offset: 0 };
    const found = await searchTranscripts(db, user.id, { text: 'Haus', ...query });
    expect(found.hits.map((hit) => hit.segment?.text)).toEqual(['Die Häuser sind verkauft.']);
    const byName = await searchTranscripts(db, user.id, { text: 'Besprechungen', ...query });
    expect(byName.hits.map((hit) => hit.field)).toEqual(['name']);

    await db.migrate.rollback({ migrationSource: firstMigrations(before + 1) });
    const columns = await db('information_schema.columns')
      .where({ table_name: 'transcript_segments' })
      .pluck('column_name');
    expect(columns).not.toContain('search_vector');
    expect(await db.schema.hasTable('search_languages')).toBe(false);
    expect(await migrateToLatest(db)).toEqual(MIGRATIONS.slice(before).map(([name]) => name));
    expect((await searchTranscripts(db, user.id, { text: 'verkauft', ...query })).total).toBe(1);
  });
});
