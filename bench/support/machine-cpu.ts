/** The whole machine's CPU, from /proc/stat: how many cores were busy between two readings. */
import { readFileSync } from 'node:fs';

const CORES = Number(readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 1);

export function machineCpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** Cores the machine kept busy on average since `start` (a machineCpuTicks reading). */
export function machineCoresSince(start: { busy: number; total: number }): number {
  const end = machineCpuTicks();
  return ((end.busy - start.busy) / (end.total - start.total)) * CORES;
}
