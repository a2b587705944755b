import type { Knex } from 'knex';

/** Zoom, the third platform (issue 32): the meetings' platform check accepts `zoom`. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE meetings
      DROP CONSTRAINT meetings_platform_valid,
      ADD CONSTRAINT meetings_platform_valid CHECK (platform IN ('google_meet', 'teams', 'zoom'))
  `);
}

/** Going back refuses while Zoom meetings exist: the check would fail on them, and they are not ours to delete. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE meetings
      DROP CONSTRAINT meetings_platform_valid,
      ADD CONSTRAINT meetings_platform_valid CHECK (platform IN ('google_meet', 'teams'))
  `);
}
