import type { Knex } from 'knex';

/**
 * Each segment keeps the JSON text of its strings and times as GET /transcripts shows them
 * (`"text":…,"speaker":…,"language":…,"absolute_start_time":…,"absolute_end_time":…,"created_at":…`),
 * written by a trigger with every insert and update. Formatting three instants per segment was most
 * of the cost of reading a long meeting's transcript; at write time it is one segment at a time.
 * "Unknown speaker" and "und" are segmentJson's UNKNOWN_SPEAKER and UNKNOWN_LANGUAGE: a test holds
 * this text and segmentJson together.
 */
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transcript_segments', (table) => {
    table.text('json_text');
  });
  await knex.raw(`
    CREATE FUNCTION transcript_segments_json_text() RETURNS trigger AS $$
    BEGIN
      NEW.json_text :=
        '"text":' || to_json(NEW.text)::text
        || ',"speaker":' || to_json(coalesce(NEW.speaker, 'Unknown speaker'))::text
        || ',"language":' || to_json(coalesce(NEW.language, 'und'))::text
        || ',"absolute_start_time":"' || to_char(NEW.absolute_start_time AT TIME ZONE 'UTC', ${ISO})
        || '","absolute_end_time":"' || to_char(NEW.absolute_end_time AT TIME ZONE 'UTC', ${ISO})
        || '","created_at":"' || to_char(NEW.created_at AT TIME ZONE 'UTC', ${ISO}) || '"';
      RETURN NEW;
    END;
    $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE TRIGGER transcript_segments_json_text BEFORE INSERT OR UPDATE ON transcript_segments
    FOR EACH ROW EXECUTE FUNCTION transcript_segments_json_text()`);
  // Segments stored before: the trigger writes theirs.
  await knex.raw('UPDATE transcript_segments SET json_text = NULL');
  await knex.raw('ALTER TABLE transcript_segments ALTER COLUMN json_text SET NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS transcript_segments_json_text ON transcript_segments');
  await knex.raw('DROP FUNCTION IF EXISTS transcript_segments_json_text()');
  await knex.schema.alterTable('transcript_segments', (table) => {
    table.dropColumn('json_text');
  });
}
