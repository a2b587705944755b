import type Docker from 'dockerode';
import type { Redis } from 'ioredis';
import { listBotSessions } from '../../shared/bots/session-registry.js';
import { transcriptSegmentMessage } from '../../shared/contract/events.js';
import { decodeStreamEntry } from '../../shared/contract/stream-codec.js';
import { botSessionStream } from '../../shared/contract/streams.js';
import type { Knex } from '../../shared/infra/knex.js';
import { Labels } from '../../worker/runtime/bot-runtime.js';
import { followContainerLines } from './container-log-lines.js';

/** One segment as the bot last published it (its final copy when there is one). */
export interface PublishedSegment {
  segmentId: string;
  text: string;
  final: boolean;
  /** How many copies of it the stream holds (a mutable segment is re-sent until final). */
  copies: number;
}

/** The segments streams of every bot launched for this meeting (from the workers' session registry). */
export async function segmentStreamsOf(redis: Redis, prefix: string, meetingId: number): Promise<string[]> {
  const sessions = await listBotSessions(redis, prefix);
  return [...sessions]
    .filter(([, entry]) => entry.meetingId === meetingId)
    .sort(([, a], [, b]) => a.launchedAt - b.launchedAt)
    .map(([sessionId]) => botSessionStream(prefix, sessionId, 'segments'));
}

/** What the meeting's bots appended to their segments streams, by segment id, in stream order. */
export async function publishedSegments(
  redis: Redis,
  prefix: string,
  meetingId: number,
): Promise<Map<string, PublishedSegment>> {
  const published = new Map<string, PublishedSegment>();
  for (const stream of await segmentStreamsOf(redis, prefix, meetingId)) {
    await readSegments(redis, stream, meetingId, published);
  }
  return published;
}

async function readSegments(
  redis: Redis,
  stream: string,
  meetingId: number,
  published: Map<string, PublishedSegment>,
): Promise<void> {
  let from = '-';
  for (;;) {
    const entries = await redis.xrange(stream, from, '+', 'COUNT', 1000);
    for (const [, fields] of entries) {
      const parsed = decodeStreamEntry(transcriptSegmentMessage, fields);
      if (!parsed.ok || parsed.value.meetingId !== meetingId) continue;
      const segment = parsed.value;
      const earlier = published.get(segment.segmentId);
      // As the store does: a final copy is never replaced by a later non-final one.
      const keep = earlier?.final && !segment.final ? earlier : segment;
      published.set(segment.segmentId, {
        segmentId: segment.segmentId,
        text: keep.text,
        final: keep.final,
        copies: (earlier?.copies ?? 0) + 1,
      });
    }
    if (entries.length < 1000) return;
    from = `(${entries.at(-1)![0]}`;
  }
}

export interface StoredSegment {
  segmentId: string;
  text: string;
  final: boolean;
  /** Seconds from the end of the words to their commit in Postgres. */
  lagSeconds: number;
}

/** Every row the meeting has in Postgres, in start order. */
export async function storedSegments(db: Knex, meetingId: number): Promise<StoredSegment[]> {
  const rows: Array<{ segment_id: string; text: string; is_final: boolean; lag: number }> = await db(
    'transcript_segments',
  )
    .where({ meeting_id: meetingId })
    .orderBy('start_seconds')
    .select(
      'segment_id',
      'text',
      'is_final',
      db.raw('extract(epoch from (updated_at - absolute_end_time))::float8 AS lag'),
    );
  return rows.map((row) => ({
    segmentId: row.segment_id,
    text: row.text,
    final: row.is_final,
    lagSeconds: row.lag,
  }));
}

/** The differences between what the bot published and what Postgres holds; empty when none. */
export function transcriptProblems(
  published: Map<string, PublishedSegment>,
  stored: StoredSegment[],
  botLogged?: Set<string>,
): string[] {
  const problems: string[] = [];
  const byId = new Map<string, StoredSegment[]>();
  for (const row of stored) byId.set(row.segmentId, [...(byId.get(row.segmentId) ?? []), row]);
  for (const [id, rows] of byId)
    if (rows.length > 1) problems.push(`segment ${id} stored ${rows.length} times`);
  for (const segment of published.values()) {
    const row = byId.get(segment.segmentId)?.[0];
    if (!row) problems.push(`segment ${segment.segmentId} ("${segment.text}") published but not stored`);
    else if (row.text !== segment.text || row.final !== segment.final)
      problems.push(
        `segment ${segment.segmentId} stored as "${row.text}" (final ${row.final}), published last as "${segment.text}" (final ${segment.final})`,
      );
  }
  for (const row of stored)
    if (!published.has(row.segmentId)) problems.push(`segment ${row.segmentId} stored but never published`);
  // A double ingest under other ids would repeat words: no two final rows may carry the same text.
  const texts = new Map<string, number>();
  for (const row of stored) if (row.final && row.text) texts.set(row.text, (texts.get(row.text) ?? 0) + 1);
  for (const [text, count] of texts) if (count > 1) problems.push(`"${text}" stored ${count} times`);
  if (botLogged)
    for (const id of botLogged)
      if (!published.has(id)) problems.push(`segment ${id} in the bot's log but not in the stream`);
  return problems;
}

/**
 * Follows a bot container's log (run the bot with BOT_LOG_LEVEL=debug: it logs every segment it
 * publishes) and collects the segment ids, the bot's own account of what it published.
 */
export async function followBotLog(
  docker: Docker,
  containerId: string,
): Promise<{ segmentIds: Set<string>; lines: () => string[]; stop: () => void }> {
  const segmentIds = new Set<string>();
  const lines: string[] = [];
  const { stop } = await followContainerLines(docker, containerId, (line) => {
    lines.push(line);
    if (lines.length > 5000) lines.shift();
    try {
      const entry = JSON.parse(line) as { msg?: string; segmentId?: string };
      if (entry.msg === 'segment' && entry.segmentId) segmentIds.add(entry.segmentId);
    } catch {
      // Not a log line of the bot's (e.g. Chromium's own output).
    }
  });
  return { segmentIds, lines: () => lines, stop };
}

/** The deployment's containers (running or not): none may be left once a stack closed. */
export async function deploymentContainers(docker: Docker, prefix: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${Labels.deployment}=${prefix}`] } });
}

/** A short summary of ingest lag for the report: max and median seconds from speech end to commit. */
export function lagSummary(stored: StoredSegment[]): { maxSeconds: number; medianSeconds: number } {
  const lags = stored.map((row) => row.lagSeconds).sort((a, b) => a - b);
  return {
    maxSeconds: Number((lags.at(-1) ?? 0).toFixed(2)),
    medianSeconds: Number((lags[Math.floor(lags.length / 2)] ?? 0).toFixed(2)),
  };
}
