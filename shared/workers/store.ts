import { NON_TERMINAL_STATUSES } from '../contract/meeting-status.js';
import type { Db } from '../infra/knex.js';

/** A worker as its last heartbeat described it. */
export interface WorkerRecord {
  workerId: string;
  dockerHost: string;
  slots: number;
  bots: number;
  accepting: boolean;
  startedAt: Date;
  heartbeatAt: Date;
}

interface WorkerRow {
  worker_id: string;
  docker_host: string;
  slots: number;
  bots: number;
  accepting: boolean;
  started_at: Date;
  heartbeat_at: Date;
}

export interface Heartbeat {
  workerId: string;
  dockerHost: string;
  slots: number;
  bots: number;
  accepting: boolean;
}

function toRecord(row: WorkerRow): WorkerRecord {
  return {
    workerId: row.worker_id,
    dockerHost: row.docker_host,
    slots: row.slots,
    bots: row.bots,
    accepting: row.accepting,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
  };
}

/**
 * Records that the worker is alive now (the database's clock, so hosts' clocks never matter).
 * `started` marks a (re)start of the worker process.
 */
export async function recordHeartbeat(db: Db, beat: Heartbeat, started = false): Promise<void> {
  const row = {
    worker_id: beat.workerId,
    docker_host: beat.dockerHost,
    slots: beat.slots,
    bots: beat.bots,
    accepting: beat.accepting,
    heartbeat_at: db.fn.now() as unknown as Date,
  };
  const merge: Array<keyof WorkerRow> = ['docker_host', 'slots', 'bots', 'accepting', 'heartbeat_at'];
  if (started) merge.push('started_at');
  await db<WorkerRow>('workers')
    .insert({ ...row, started_at: db.fn.now() as unknown as Date })
    .onConflict('worker_id')
    .merge(merge);
}

/** Workers whose last heartbeat is at most `withinSeconds` old. */
export async function listLiveWorkers(db: Db, withinSeconds: number): Promise<WorkerRecord[]> {
  const rows = await db<WorkerRow>('workers')
    .where('heartbeat_at', '>=', db.raw(`now() - make_interval(secs => ?)`, [withinSeconds]))
    .orderBy('worker_id');
  return rows.map(toRecord);
}

export async function listWorkers(db: Db): Promise<WorkerRecord[]> {
  const rows = await db<WorkerRow>('workers').orderBy('worker_id');
  return rows.map(toRecord);
}

/** A live meeting whose worker stopped heartbeating. */
export interface OrphanedMeeting {
  meetingId: number;
  sessionId: string;
  workerId: string;
  dockerHost: string;
  heartbeatAt: Date;
  relaunchCount: number;
}

/**
 * Live meetings with a launched bot whose worker's heartbeat is older than `lapsedSeconds`
 * (measured on the database's clock). A worker never sweeps its own meetings.
 */
export async function listMeetingsOfLapsedWorkers(
  db: Db,
  lapsedSeconds: number,
  exceptWorkerId: string,
): Promise<OrphanedMeeting[]> {
  const rows: Array<{
    id: number;
    launch_session_id: string;
    worker_id: string;
    docker_host: string;
    heartbeat_at: Date;
    relaunch_count: number;
  }> = await db('meetings as m')
    .join('workers as w', 'w.worker_id', 'm.worker_id')
    .whereIn('m.status', NON_TERMINAL_STATUSES)
    .whereNotNull('m.launch_session_id')
    .whereNot('m.worker_id', exceptWorkerId)
    .where('w.heartbeat_at', '<', db.raw(`now() - make_interval(secs => ?)`, [lapsedSeconds]))
    .orderBy('m.id')
    .select(
      'm.id',
      'm.launch_session_id',
      'm.worker_id',
      'w.docker_host',
      'w.heartbeat_at',
      'm.relaunch_count',
    );
  return rows.map((row) => ({
    meetingId: row.id,
    sessionId: row.launch_session_id,
    workerId: row.worker_id,
    dockerHost: row.docker_host,
    heartbeatAt: row.heartbeat_at,
    relaunchCount: row.relaunch_count,
  }));
}

/**
 * Whether another live worker taking launches has more free slots than `free` (as its latest
 * heartbeat says; workers write one whenever their bots change).
 */
export async function roomierWorkerExists(
  db: Db,
  self: { workerId: string; free: number },
  liveWithinSeconds: number,
): Promise<boolean> {
  const row = await db<WorkerRow>('workers')
    .whereNot('worker_id', self.workerId)
    .where({ accepting: true })
    .where('heartbeat_at', '>=', db.raw(`now() - make_interval(secs => ?)`, [liveWithinSeconds]))
    .where(db.raw('slots - bots > ?', [self.free]))
    .first('worker_id');
  return row !== undefined;
}
