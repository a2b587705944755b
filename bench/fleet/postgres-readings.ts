/**
 * What the fleet bench reads from its Postgres: the meetings' statuses, the webhook deliveries, the
 * connections, the database's counters and busiest statements, and the segments' commit latency
 * (each simulated bot puts its publish time in `absolute_end_time`; the row's `updated_at` is the
 * ingest transaction's now()).
 */
import type { Window } from './live-readers.js';
import type { Db } from './start-stores.js';

/** The meetings by status now. */
export async function meetingsByStatus(db: Db): Promise<Record<string, number>> {
  const rows: Array<{ status: string; n: number }> = (
    await db.raw('SELECT status, count(*)::int AS n FROM meetings GROUP BY status')
  ).rows;
  return Object.fromEntries(rows.map((row) => [row.status, row.n])) as Record<string, number>;
}

export async function pendingDeliveries(db: Db): Promise<number> {
  return Number((await db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }))[0]?.n ?? 0);
}

/** Client connections to Postgres now. */
export async function clientBackends(db: Db): Promise<number> {
  const pg = await db.raw(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'",
  );
  return pg.rows[0].n;
}

export async function connectionsByState(db: Db): Promise<Array<{ state: string | null; n: number }>> {
  return (
    await db.raw(
      "SELECT state, count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY state",
    )
  ).rows;
}

/** The database's transactions committed and rows inserted and updated so far (bigint, as text). */
export interface DatabaseCounters {
  commits: string;
  inserted: string;
  updated: string;
}

export async function databaseCounters(db: Db): Promise<DatabaseCounters> {
  return (
    await db.raw(
      'SELECT xact_commit::bigint AS commits, tup_inserted::bigint AS inserted, tup_updated::bigint AS updated FROM pg_stat_database WHERE datname = current_database()',
    )
  ).rows[0];
}

export interface Statement {
  query: string;
  calls: number;
  total_ms: number;
  mean_ms: number;
}

/** The eight statements that took the most time since pg_stat_statements_reset(). */
export async function busiestStatements(db: Db): Promise<Statement[]> {
  return (
    await db.raw(
      `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::int AS calls,
              total_exec_time AS total_ms, mean_exec_time AS mean_ms
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC LIMIT 8`,
    )
  ).rows;
}

/** Every final segment published in the window: publish → row written, ms. */
export async function commitLatencies(db: Db, window: Window): Promise<number[]> {
  return (
    await db.raw(
      `SELECT extract(epoch FROM (updated_at - absolute_end_time)) * 1000 AS ms
         FROM transcript_segments WHERE is_final AND absolute_end_time BETWEEN ? AND ?`,
      [new Date(window.from), new Date(window.to)],
    )
  ).rows.map((row: { ms: string }) => Number(row.ms)) as number[];
}

/** Segments (final or not) published in the window. */
export async function segmentsWritten(db: Db, window: Window): Promise<number> {
  return Number(
    (
      await db.raw(
        'SELECT count(*)::int AS n FROM transcript_segments WHERE absolute_end_time BETWEEN ? AND ?',
        [new Date(window.from), new Date(window.to)],
      )
    ).rows[0].n,
  );
}

/** Why meetings failed, by reason (none when the table can't be read). */
export async function failedReasons(db: Db): Promise<Array<{ reason: string; n: number }>> {
  return (
    await db
      .raw(
        "SELECT coalesce(reason, '?') AS reason, count(*)::int AS n FROM meeting_status_transitions WHERE to_status = 'failed' GROUP BY 1",
      )
      .catch(() => ({ rows: [] }))
  ).rows;
}

export async function deliveriesByStatus(db: Db): Promise<Array<{ status: string; n: number }>> {
  return (await db.raw('SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status')).rows;
}

/** Deliveries tried more than once, by event type, with the last error. */
export async function retriedDeliveries(
  db: Db,
): Promise<Array<{ event_type: string; n: number; error: string | null }>> {
  return (
    await db.raw(
      `SELECT event_type, count(*)::int AS n, max(last_error) AS error
         FROM webhook_deliveries WHERE attempts > 1 GROUP BY event_type`,
    )
  ).rows;
}

/** The three deliveries that took longest from the event to its delivery. */
export async function slowestDeliveries(
  db: Db,
): Promise<Array<{ event_type: string; seconds: number; attempts: number }>> {
  return (
    await db.raw(
      `SELECT event_type, extract(epoch FROM delivered_at - created_at)::float AS seconds, attempts
         FROM webhook_deliveries WHERE delivered_at IS NOT NULL ORDER BY delivered_at - created_at DESC LIMIT 3`,
    )
  ).rows;
}
