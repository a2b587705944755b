/**
 * CPU per thread name inside a set of processes, read from the host's /proc (root, as the other
 * container benches). Chromium names its threads (e.g. the WebRTC encoder and decoder queues), so
 * this splits one renderer's CPU into what its threads did.
 */
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU ticks so far per thread, keyed by `pid/tid`, with the thread's name. */
export function threadTicks(pids: number[]): Map<string, { name: string; ticks: number }> {
  const found = new Map<string, { name: string; ticks: number }>();
  for (const pid of pids) {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // the process ended
    }
    for (const tid of tids) {
      try {
        const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        found.set(`${pid}/${tid}`, { name, ticks: Number(fields[11]) + Number(fields[12]) });
      } catch {
        // the thread ended between the listing and the read
      }
    }
  }
  return found;
}

/**
 * Cores used per thread name between two readings over `seconds` (threads of one name summed;
 * trailing digits dropped, so "WebRTC_W_and_N" and a numbered pool each make one row), busiest first.
 */
export function coresByThreadName(
  before: Map<string, { ticks: number }>,
  after: Map<string, { name: string; ticks: number }>,
  seconds: number,
): { name: string; threads: number; cores: number }[] {
  const rows = new Map<string, { name: string; threads: number; cores: number }>();
  for (const [key, thread] of after) {
    const name = thread.name.replace(/[\d/]+$/, '') || thread.name;
    const row = rows.get(name) ?? { name, threads: 0, cores: 0 };
    row.threads += 1;
    row.cores += (thread.ticks - (before.get(key)?.ticks ?? 0)) / CLOCK_TICKS_PER_SECOND / seconds;
    rows.set(name, row);
  }
  return [...rows.values()].sort((a, b) => b.cores - a.cores);
}
