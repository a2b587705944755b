/**
 * What each process of the run uses, read from /proc: CPU time, resident memory (and PSS, which
 * shares out what Postgres' processes share), its children, and its TCP connections to a port
 * (Redis, Postgres), found by matching the process's socket inodes against /proc/net/tcp.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;
const ESTABLISHED = '01';

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) the process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  const fields = statFields(pid);
  if (!fields) return 0;
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Resident memory now and at its peak (VmHWM), in MiB; zeros once it is gone. */
export function residentMiB(pid: number): { rss: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
}

/** Proportional set size in MiB (shared pages split among their users); 0 when unreadable. */
export function pssMiB(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Bytes the process has handed to write() so far (its AOF, for Redis), from /proc/<pid>/io; 0 when unreadable. */
export function writtenBytes(pid: number): number {
  try {
    return Number(/^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The pids whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields && Number(fields[1]) === pid) children.push(Number(entry));
  }
  return children;
}

/** The parent of `pid`, or 0. */
export function parentOf(pid: number): number {
  return Number(statFields(pid)?.[1] ?? 0);
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Established TCP sockets by inode, with their remote port. */
function tcpRemotePorts(): Map<string, number> {
  const byInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[] = [];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== ESTABLISHED) continue;
      const remotePort = Number.parseInt(fields[2]!.split(':')[1] ?? '0', 16);
      byInode.set(fields[9]!, remotePort);
    }
  }
  return byInode;
}

/** For each pid, how many established connections it holds to each of `ports`. */
export function connectionsTo(pids: number[], ports: number[]): Map<number, Record<number, number>> {
  const remote = tcpRemotePorts();
  const counts = new Map<number, Record<number, number>>();
  for (const pid of pids) {
    const row: Record<number, number> = Object.fromEntries(ports.map((port) => [port, 0]));
    for (const inode of socketInodes(pid)) {
      const port = remote.get(inode);
      if (port !== undefined && port in row) row[port]! += 1;
    }
    counts.set(pid, row);
  }
  return counts;
}
