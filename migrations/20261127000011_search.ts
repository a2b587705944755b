import type { Knex } from 'knex';

/**
 * Full-text search over transcripts and meeting metadata (GET /search, issue 29).
 *
 * Each segment keeps its owner's `user_id` (copied from its meeting: searches are per user, and the
 * GIN index holds it beside the words so one user's matches are found without reading others'),
 * the text search configuration its words were stemmed with (`search_config`, from the segment's
 * language, else its meeting's, else `simple`) and the words themselves (`search_vector`). A trigger
 * writes them with every insert and with every update that changes the text or language (segments
 * are rewritten while a meeting runs), so the index never lags the transcript. Meetings keep a
 * vector of their metadata the same way: `name` (weight A), `participants` (B), `notes` (C).
 *
 * `search_languages` maps language codes to the configurations this server has; a query is parsed
 * once per configuration the user's rows were stemmed with (`search_user_configs`, which the same
 * triggers keep: most users have one or two), and each parse matches only rows stemmed with that
 * configuration. Only the first 100,000 characters of a text are indexed (a tsvector holds at most
 * 1 MB).
 */
const LANGUAGES: ReadonlyArray<readonly [code: string, config: string]> = [
  ['ar', 'arabic'],
  ['ca', 'catalan'],
  ['da', 'danish'],
  ['de', 'german'],
  ['el', 'greek'],
  ['en', 'english'],
  ['es', 'spanish'],
  ['eu', 'basque'],
  ['fi', 'finnish'],
  ['fr', 'french'],
  ['ga', 'irish'],
  ['hi', 'hindi'],
  ['hu', 'hungarian'],
  ['hy', 'armenian'],
  ['id', 'indonesian'],
  ['it', 'italian'],
  ['lt', 'lithuanian'],
  ['nb', 'norwegian'],
  ['ne', 'nepali'],
  ['nl', 'dutch'],
  ['nn', 'norwegian'],
  ['no', 'norwegian'],
  ['pt', 'portuguese'],
  ['ro', 'romanian'],
  ['ru', 'russian'],
  ['sr', 'serbian'],
  ['sv', 'swedish'],
  ['ta', 'tamil'],
  ['tr', 'turkish'],
  ['yi', 'yiddish'],
];

const INDEXED_CHARS = 100_000;

export async function up(knex: Knex): Promise<void> {
  // Lets the GIN index hold the user id beside the words (an extension every Postgres ships, trusted
  // since Postgres 13: the database's owner may create it).
  await knex.raw('CREATE EXTENSION IF NOT EXISTS btree_gin');

  await knex.schema.createTable('search_languages', (table) => {
    table.text('code').primary();
    table.specificType('config', 'regconfig').notNullable();
  });
  // Only the configurations this server has (older servers lack some).
  await knex.raw(
    `INSERT INTO search_languages (code, config)
     SELECT wanted.code, c.oid::regconfig
     FROM (VALUES ${LANGUAGES.map(() => '(?, ?)').join(', ')}) AS wanted (code, config)
     JOIN pg_ts_config c ON c.cfgname = wanted.config AND c.cfgnamespace = 'pg_catalog'::regnamespace`,
    LANGUAGES.flat(),
  );
  // `pt-BR`, `en_US`, `DE` → the configuration of `pt`, `en`, `de`; null for `und` and the unknown.
  await knex.raw(`
    CREATE FUNCTION search_config_of(language text) RETURNS regconfig AS $$
      SELECT config FROM search_languages
      WHERE code = lower(split_part(replace(language, '_', '-'), '-', 1))
    $$ LANGUAGE sql STABLE`);

  // Which configurations each user's rows use; a row only ever added (a stale one costs a parse).
  await knex.schema.createTable('search_user_configs', (table) => {
    table.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.specificType('config', 'regconfig').notNullable();
    table.primary(['user_id', 'config']);
  });
  await knex.raw(`
    CREATE FUNCTION search_note_config(owner integer, used regconfig) RETURNS void AS $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM search_user_configs WHERE user_id = owner AND config = used) THEN
        INSERT INTO search_user_configs (user_id, config) VALUES (owner, used) ON CONFLICT DO NOTHING;
      END IF;
    END;
    $$ LANGUAGE plpgsql`);

  await knex.schema.alterTable('transcript_segments', (table) => {
    table.integer('user_id');
    table.specificType('search_config', 'regconfig');
    table.specificType('search_vector', 'tsvector');
  });
  await knex.raw(`
    CREATE FUNCTION transcript_segments_search() RETURNS trigger AS $$
    DECLARE
      meeting record;
    BEGIN
      IF TG_OP = 'UPDATE' AND NEW.search_vector IS NOT NULL AND NEW.language IS NOT DISTINCT FROM OLD.language THEN
        -- A rewrite of a mutable segment's text keeps its owner and configuration.
        IF NEW.text IS DISTINCT FROM OLD.text THEN
          NEW.search_vector := to_tsvector(NEW.search_config, left(NEW.text, ${INDEXED_CHARS}));
        END IF;
        RETURN NEW;
      END IF;
      SELECT user_id, language, data INTO meeting FROM meetings WHERE id = NEW.meeting_id;
      NEW.user_id := meeting.user_id;
      NEW.search_config := coalesce(
        search_config_of(NEW.language),
        search_config_of(meeting.language),
        search_config_of(meeting.data -> 'languages' ->> 0),
        'simple');
      NEW.search_vector := to_tsvector(NEW.search_config, left(NEW.text, ${INDEXED_CHARS}));
      PERFORM search_note_config(NEW.user_id, NEW.search_config);
      RETURN NEW;
    END;
    $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE TRIGGER transcript_segments_search BEFORE INSERT OR UPDATE ON transcript_segments
    FOR EACH ROW EXECUTE FUNCTION transcript_segments_search()`);
  // Segments stored before: the trigger writes theirs.
  await knex.raw('UPDATE transcript_segments SET search_vector = NULL');
  await knex.raw(`
    ALTER TABLE transcript_segments
      ALTER COLUMN user_id SET NOT NULL,
      ALTER COLUMN search_config SET NOT NULL,
      ALTER COLUMN search_vector SET NOT NULL`);
  // Beside the words: the speaker and the UTC day (an array of one, so a range of days is one scan of
  // the index), so a speaker or date filter narrows the index scan instead of reading every match of
  // a common word. shared/search/store.ts writes its conditions exactly so.
  await knex.raw(`
    CREATE INDEX transcript_segments_search ON transcript_segments USING gin (
      user_id,
      search_vector,
      lower(coalesce(speaker, 'Unknown speaker')),
      (ARRAY[(absolute_start_time AT TIME ZONE 'UTC')::date]))`);

  await knex.schema.alterTable('meetings', (table) => {
    table.specificType('search_config', 'regconfig');
    table.specificType('search_vector', 'tsvector');
  });
  // Participants are written one after another, as a list reads: "Ann Lee, Bo Chen".
  await knex.raw(`
    CREATE FUNCTION meetings_search() RETURNS trigger AS $$
    DECLARE
      participants text;
    BEGIN
      IF jsonb_typeof(NEW.data -> 'participants') = 'array' THEN
        SELECT string_agg(value, ', ') INTO participants
        FROM jsonb_array_elements_text(NEW.data -> 'participants');
      END IF;
      NEW.search_config := coalesce(
        search_config_of(NEW.language), search_config_of(NEW.data -> 'languages' ->> 0), 'simple');
      NEW.search_vector :=
        setweight(to_tsvector(NEW.search_config, left(coalesce(NEW.data ->> 'name', ''), ${INDEXED_CHARS})), 'A')
        || setweight(to_tsvector(NEW.search_config, left(coalesce(participants, ''), ${INDEXED_CHARS})), 'B')
        || setweight(to_tsvector(NEW.search_config, left(coalesce(NEW.data ->> 'notes', ''), ${INDEXED_CHARS})), 'C');
      PERFORM search_note_config(NEW.user_id, NEW.search_config);
      RETURN NEW;
    END;
    $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE TRIGGER meetings_search BEFORE INSERT OR UPDATE OF data, language ON meetings
    FOR EACH ROW EXECUTE FUNCTION meetings_search()`);
  await knex.raw('UPDATE meetings SET data = data');
  await knex.raw(`
    ALTER TABLE meetings
      ALTER COLUMN search_config SET NOT NULL,
      ALTER COLUMN search_vector SET NOT NULL`);
  await knex.raw('CREATE INDEX meetings_search ON meetings USING gin (user_id, search_vector)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS meetings_search');
  await knex.raw('DROP TRIGGER IF EXISTS meetings_search ON meetings');
  await knex.raw('DROP FUNCTION IF EXISTS meetings_search()');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumns('search_config', 'search_vector');
  });
  await knex.raw('DROP INDEX IF EXISTS transcript_segments_search');
  await knex.raw('DROP TRIGGER IF EXISTS transcript_segments_search ON transcript_segments');
  await knex.raw('DROP FUNCTION IF EXISTS transcript_segments_search()');
  await knex.schema.alterTable('transcript_segments', (table) => {
    table.dropColumns('user_id', 'search_config', 'search_vector');
  });
  await knex.raw('DROP FUNCTION IF EXISTS search_note_config(integer, regconfig)');
  await knex.schema.dropTable('search_user_configs');
  await knex.raw('DROP FUNCTION IF EXISTS search_config_of(text)');
  await knex.schema.dropTable('search_languages');
}
