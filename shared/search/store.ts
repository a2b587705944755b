import type { Platform } from '../contract/platforms.js';
import type { MeetingStatus } from '../contract/meeting-status.js';
import type { Db } from '../infra/knex.js';
import { HEADLINE_FROM, HEADLINE_TO, HIGHLIGHT_END, HIGHLIGHT_START } from './snippet.js';
import { join, raw, type Sql, sql } from './sql.js';

/**
 * One parse of the search text, shared by every text search configuration that parses it the same
 * way: it matches only rows whose words were stemmed with one of `configs`.
 */
export interface ParsedQuery {
  configs: string[];
  /** Every configuration of the user's rows parses the text so: no row needs its configuration checked. */
  everyConfig: boolean;
  /** The tsquery as text (Postgres reads it back unchanged). */
  tsquery: string;
  /** False for a query Postgres can only answer by reading every row (only excluded words). */
  indexable: boolean;
}

/** The search text's parses: those that search the user's rows, and whether any parse has a word. */
export interface ParsedSearch {
  /** One per way the configurations of the user's rows parse the text (none: the user has no rows). */
  queries: ParsedQuery[];
  /** Some word survived parsing (with `simple`, which keeps every word): the text is not only symbols. */
  hasWords: boolean;
  /** `simple`'s parse has a word that must occur (not only `-words`), whatever the user's rows. */
  simpleIndexable: boolean;
}

/**
 * The search text parsed (websearch_to_tsquery: words, "phrases", `or`, `-word`; never an error,
 * whatever the text) by each configuration the user's rows were stemmed with. Configurations that
 * parse it alike are grouped; parses without a word (only stop words of that language) are left out.
 */
export async function parseSearchText(db: Db, userId: number, text: string): Promise<ParsedSearch> {
  const { rows } = await db.raw<{
    rows: Array<{ config: string; own: boolean; tsquery: string; nodes: number; tree: string }>;
  }>(
    `SELECT c.config::text AS config, c.own, q::text AS tsquery, numnode(q) AS nodes, querytree(q) AS tree
     FROM (
       SELECT config, bool_or(own) AS own
       FROM (SELECT config, true AS own FROM search_user_configs WHERE user_id = ?
             UNION ALL SELECT 'simple'::regconfig, false) AS listed
       GROUP BY config
     ) AS c
     CROSS JOIN LATERAL websearch_to_tsquery(c.config, ?) AS q
     ORDER BY 1`,
    [userId, text],
  );
  const own = rows.filter((row) => row.own);
  const byQuery = new Map<string, ParsedQuery>();
  for (const row of own) {
    if (row.nodes === 0) continue;
    const parsed = byQuery.get(row.tsquery);
    if (parsed) parsed.configs.push(row.config);
    else {
      const indexable = row.tree !== 'T';
      byQuery.set(row.tsquery, {
        configs: [row.config],
        everyConfig: false,
        tsquery: row.tsquery,
        indexable,
      });
    }
  }
  for (const parsed of byQuery.values()) parsed.everyConfig = parsed.configs.length === own.length;
  const simple = rows.find((row) => row.config === 'simple');
  return {
    queries: [...byQuery.values()],
    hasWords: rows.some((row) => row.nodes > 0),
    simpleIndexable: simple !== undefined && simple.nodes > 0 && simple.tree !== 'T',
  };
}

export interface MatchFilters {
  platform?: Platform | undefined;
  meetingIds?: number[] | undefined;
  speaker?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Which text of a meeting a hit is in. */
export type HitField = 'transcript' | 'name' | 'participants' | 'notes';

export interface HitRow {
  field: HitField;
  rank: number;
  meeting: {
    id: number;
    platform: Platform;
    nativeMeetingId: string;
    status: MeetingStatus;
    name: string | null;
    startTime: Date | null;
    endTime: Date | null;
  };
  /** The segment, for a hit in the transcript. */
  segment: {
    segmentId: string;
    speaker: string | null;
    language: string | null;
    text: string;
    start: number;
    end: number;
    absoluteStartTime: Date;
    absoluteEndTime: Date;
  } | null;
  /** The matching text around the hit, each match between HIGHLIGHT_START and HIGHLIGHT_END. */
  headline: string;
}

// Short texts (segments, names, participants) whole, or the 15–35 words around the best match; notes
// as up to three fragments around matches. ShortWord=0 keeps short words at a fragment's edges.
const HEADLINE = `StartSel=${HIGHLIGHT_START}, StopSel=${HIGHLIGHT_END}, ShortWord=0`;
const SHORT_HEADLINE = `${HEADLINE}, MaxWords=35, MinWords=15`;
const LONG_HEADLINE = `${HEADLINE}, MaxWords=20, MinWords=8, MaxFragments=3, FragmentDelimiter=" … "`;

// Each metadata field's words carry their own weight in meetings.search_vector (the migration).
const METADATA_FIELDS = `(VALUES ('name', '{a}'::"char"[]), ('participants', '{b}'::"char"[]), ('notes', '{c}'::"char"[]))`;

/** The text of a hit's field as it was indexed (participants one after another). */
const FIELD_TEXT = `CASE page.field
        WHEN 'transcript' THEN s.text
        WHEN 'name' THEN m.data ->> 'name'
        WHEN 'notes' THEN m.data ->> 'notes'
        ELSE (SELECT string_agg(value, ', ') FROM jsonb_array_elements_text(
          CASE WHEN jsonb_typeof(m.data -> 'participants') = 'array' THEN m.data -> 'participants' END))
      END`;

/** A segment's speaker and UTC day as the GIN index holds them; 'Unknown speaker' is UNKNOWN_SPEAKER. */
const SEGMENT_SPEAKER = `lower(coalesce(s.speaker, 'Unknown speaker'))`;
const SEGMENT_DAYS = `ARRAY[(s.absolute_start_time AT TIME ZONE 'UTC')::date]`;

/**
 * The UTC days from `from` to just before `to`, for the index to find a time range's segments by
 * (each day is a key of its own); undefined for a range too long to be worth it (it hardly narrows
 * the matches) or open on one side.
 */
function daysBetween(from: Date | undefined, to: Date | undefined): string[] | undefined {
  if (!from || !to) return undefined;
  const first = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  const last = to.getTime() - 1;
  if (last - first > MAX_INDEXED_DAYS * DAY_MS) return undefined;
  const days: string[] = [];
  for (let day = first; day <= last; day += DAY_MS) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

const DAY_MS = 86_400_000;
const MAX_INDEXED_DAYS = 92;

/**
 * The user's hits, best first, one page of them with their meetings, segments and headlines, and
 * how many there are in all. A hit is one text (a segment, or a meeting's name, participant list or
 * notes) that matches the whole query on its own. Ranked by ts_rank_cd with the default weights, so
 * a name (A, 1.0) ranks above participants (B, 0.4), notes (C, 0.2) and transcript text (D, 0.1)
 * with the same matches; ties go to the most recent.
 */
export async function findHits(
  db: Db,
  userId: number,
  queries: readonly ParsedQuery[],
  filters: MatchFilters,
  page: { limit: number; offset: number },
): Promise<{ total: number; hits: HitRow[] }> {
  /** The row's parse of the query: the one made with the configuration its words were stemmed with. */
  const alone = queries.length === 1 && queries[0]!.everyConfig ? queries[0] : undefined;
  const queryFor = (config: string): Sql => {
    if (alone) return sql`${alone.tsquery}::tsquery`;
    const branches = queries.map(
      (query) => sql`WHEN ${raw(config)} = ANY(${query.configs}::regconfig[]) THEN ${query.tsquery}::tsquery`,
    );
    return sql`(CASE ${join(branches, ' ')} END)`;
  };
  /** The row's words match its parse: one GIN scan per parse. */
  const matches = (config: string, vector: string): Sql =>
    join(
      queries.map((query) =>
        alone
          ? sql`${raw(vector)} @@ ${query.tsquery}::tsquery`
          : sql`(${raw(config)} = ANY(${query.configs}::regconfig[]) AND ${raw(vector)} @@ ${query.tsquery}::tsquery)`,
      ),
      ' OR ',
    );

  const segmentConditions = [
    sql`s.user_id = ${userId}`,
    sql`(${matches('s.search_config', 's.search_vector')})`,
  ];
  if (filters.meetingIds) segmentConditions.push(sql`s.meeting_id = ANY(${filters.meetingIds}::integer[])`);
  if (filters.platform) {
    segmentConditions.push(
      sql`s.meeting_id IN (SELECT id FROM meetings WHERE user_id = ${userId} AND platform = ${filters.platform})`,
    );
  }
  // The day and speaker conditions are written as the GIN index's columns are (the migration), so
  // the index finds the rows; the exact times are checked on them.
  const days = filters.from || filters.to ? daysBetween(filters.from, filters.to) : undefined;
  if (days) segmentConditions.push(sql`${raw(SEGMENT_DAYS)} && ${days}::date[]`);
  if (filters.from) segmentConditions.push(sql`s.absolute_start_time >= ${filters.from}`);
  if (filters.to) segmentConditions.push(sql`s.absolute_start_time < ${filters.to}`);
  if (filters.speaker) segmentConditions.push(sql`${raw(SEGMENT_SPEAKER)} = lower(${filters.speaker})`);
  const segmentMatches = sql`
    SELECT 'transcript'::text AS field, s.id AS row_id, s.meeting_id, s.search_config AS config,
      ts_rank_cd(s.search_vector, ${queryFor('s.search_config')}, 32) AS rank, s.absolute_start_time AS at
    FROM transcript_segments s
    WHERE ${join(segmentConditions, ' AND ')}`;

  let metadataMatches = raw('');
  // A speaker names who said something: only segments have one.
  if (!filters.speaker) {
    const conditions = [
      sql`m.user_id = ${userId}`,
      sql`(${matches('m.search_config', 'm.search_vector')})`,
      sql`ts_filter(m.search_vector, f.weights) @@ ${queryFor('m.search_config')}`,
    ];
    if (filters.meetingIds) conditions.push(sql`m.id = ANY(${filters.meetingIds}::integer[])`);
    if (filters.platform) conditions.push(sql`m.platform = ${filters.platform}`);
    if (filters.from) conditions.push(sql`coalesce(m.start_time, m.created_at) >= ${filters.from}`);
    if (filters.to) conditions.push(sql`coalesce(m.start_time, m.created_at) < ${filters.to}`);
    metadataMatches = sql`
    UNION ALL
    SELECT f.field, m.id, m.id, m.search_config,
      ts_rank_cd(ts_filter(m.search_vector, f.weights), ${queryFor('m.search_config')}, 32),
      coalesce(m.start_time, m.created_at)
    FROM meetings m CROSS JOIN ${raw(METADATA_FIELDS)} AS f (field, weights)
    WHERE ${join(conditions, ' AND ')}`;
  }

  const statement = sql`
    WITH matches AS MATERIALIZED (${segmentMatches}${metadataMatches}
    ),
    page AS (
      SELECT * FROM matches
      ORDER BY rank DESC, at DESC, meeting_id DESC, field, row_id
      LIMIT ${page.limit} OFFSET ${page.offset}
    )
    SELECT total.n AS total, page.field, page.rank,
      m.id AS meeting_id, m.platform, m.native_meeting_id, m.status, m.start_time, m.end_time,
      CASE WHEN jsonb_typeof(m.data -> 'name') = 'string' THEN m.data ->> 'name' END AS meeting_name,
      s.segment_id, s.speaker, s.language, s.text, s.start_seconds, s.end_seconds,
      s.absolute_start_time, s.absolute_end_time,
      ts_headline(page.config, translate(${raw(FIELD_TEXT)}, ${HEADLINE_FROM}, ${HEADLINE_TO}),
        ${queryFor('page.config')},
        CASE WHEN page.field = 'notes' THEN ${LONG_HEADLINE} ELSE ${SHORT_HEADLINE} END) AS headline
    FROM (SELECT count(*) AS n FROM matches) AS total
    LEFT JOIN (
      page
      JOIN meetings m ON m.id = page.meeting_id
      LEFT JOIN transcript_segments s ON page.field = 'transcript' AND s.id = page.row_id
    ) ON true
    ORDER BY page.rank DESC, page.at DESC, page.meeting_id DESC, page.field, page.row_id`;
  const { rows } = await db.raw<{ rows: HitQueryRow[] }>(statement.text, statement.values);
  const total = Number(rows[0]?.total ?? 0);
  return { total, hits: rows.filter((row) => row.field !== null).map(toHit) };
}

interface HitQueryRow {
  total: number;
  field: HitField | null;
  rank: number;
  meeting_id: number;
  platform: Platform;
  native_meeting_id: string;
  status: MeetingStatus;
  start_time: Date | null;
  end_time: Date | null;
  meeting_name: string | null;
  segment_id: string | null;
  speaker: string | null;
  language: string | null;
  text: string | null;
  start_seconds: number | null;
  end_seconds: number | null;
  absolute_start_time: Date | null;
  absolute_end_time: Date | null;
  headline: string | null;
}

function toHit(row: HitQueryRow): HitRow {
  return {
    field: row.field as HitField,
    rank: row.rank,
    meeting: {
      id: row.meeting_id,
      platform: row.platform,
      nativeMeetingId: row.native_meeting_id,
      status: row.status,
      name: row.meeting_name,
      startTime: row.start_time,
      endTime: row.end_time,
    },
    segment:
      row.field === 'transcript'
        ? {
            segmentId: row.segment_id!,
            speaker: row.speaker,
            language: row.language,
            text: row.text!,
            start: row.start_seconds!,
            end: row.end_seconds!,
            absoluteStartTime: row.absolute_start_time!,
            absoluteEndTime: row.absolute_end_time!,
          }
        : null,
    headline: row.headline ?? '',
  };
}

/** The ids of the user's meetings that the meeting filters name (none: an empty list). */
export async function filteredMeetingIds(
  db: Db,
  userId: number,
  filter: {
    meetingId?: number | undefined;
    platform?: Platform | undefined;
    nativeMeetingId?: string | undefined;
  },
): Promise<number[]> {
  const query = db('meetings').where({ user_id: userId });
  if (filter.meetingId !== undefined) query.andWhere({ id: filter.meetingId });
  if (filter.platform !== undefined) query.andWhere({ platform: filter.platform });
  if (filter.nativeMeetingId !== undefined) query.andWhere({ native_meeting_id: filter.nativeMeetingId });
  const rows: Array<{ id: number }> = await query.select('id');
  return rows.map((row) => row.id);
}
