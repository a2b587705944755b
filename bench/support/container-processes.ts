/**
 * Where a container's memory and CPU go, process by process, read from the host's /proc (the
 * container's processes are visible there under their host PIDs; reading another user's smaps
 * needs root, as the benches that start Docker engines already do).
 */
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';

const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcessSample {
  pid: number;
  kind: string;
  pssKiB: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
}

/** A name for what the process is: Chromium's process types, Node, the recognizer. */
export function processKind(rawCmdline: string[]): string {
  // Chromium rewrites its child processes' titles into one string of space-separated arguments.
  const cmdline = rawCmdline.length === 1 ? rawCmdline[0]!.split(' ') : rawCmdline;
  const program = (cmdline[0] ?? '').split('/').at(-1) ?? '';
  const type = cmdline.find((arg) => arg.startsWith('--type='))?.slice('--type='.length);
  if (program === 'node') return 'node';
  if (program.startsWith('pocketsphinx')) return 'pocketsphinx';
  if (program.includes('crashpad')) return 'chromium crash handler';
  if (/chrom|headless_shell/.test(program)) {
    if (!type) return 'chromium browser';
    if (type === 'utility') {
      const sub = cmdline.find((arg) => arg.startsWith('--utility-sub-type='))?.slice(19) ?? 'utility';
      return `chromium utility ${sub.replace(/\.mojom\..*$/, '').replace(/^.*\./, '')}`;
    }
    if (type === 'zygote') return 'chromium zygote';
    return `chromium ${type}`;
  }
  return program || 'unknown';
}

function readProcess(pid: number): ProcessSample | null {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pss = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuTicks = Number(fields[11]) + Number(fields[12]);
    return { pid, kind: processKind(cmdline), pssKiB: pss, cpuTicks };
  } catch {
    return null; // it ended between the listing and the read
  }
}

/** Every process of the container with its PSS and CPU so far. */
export async function sampleContainer(docker: Docker, containerId: string): Promise<ProcessSample[]> {
  const top = (await docker.getContainer(containerId).top({ ps_args: '-o pid' })) as {
    Processes?: string[][];
  };
  const pids = (top.Processes ?? []).map((row) => Number(row[0])).filter((pid) => Number.isInteger(pid));
  return pids.map(readProcess).filter((sample): sample is ProcessSample => sample !== null);
}

export interface KindFootprint {
  kind: string;
  processes: number;
  pssMiB: number;
  cores: number;
}

export interface ContainerFootprint {
  kinds: KindFootprint[];
  pssMiB: number;
  cores: number;
}

/**
 * Samples the container every `everyMs` for `seconds`: PSS per kind of process (the mean over the
 * samples) and CPU per kind (what its processes used between the first and the last sample).
 */
export async function measureContainer(
  docker: Docker,
  containerId: string,
  seconds: number,
  everyMs = 5000,
): Promise<ContainerFootprint> {
  const samples: ProcessSample[][] = [];
  const times: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    samples.push(await sampleContainer(docker, containerId));
    times.push(Date.now());
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(everyMs, deadline - Date.now())));
  }
  const first = new Map(samples[0]!.map((sample) => [sample.pid, sample]));
  const last = samples.at(-1)!;
  const elapsedSeconds = (times.at(-1)! - times[0]!) / 1000;
  const kinds = new Map<string, KindFootprint>();
  const entry = (kind: string) => {
    let found = kinds.get(kind);
    if (!found) {
      found = { kind, processes: 0, pssMiB: 0, cores: 0 };
      kinds.set(kind, found);
    }
    return found;
  };
  for (const round of samples) {
    for (const sample of round) entry(sample.kind).pssMiB += sample.pssKiB / 1024 / samples.length;
  }
  for (const sample of last) {
    const kind = entry(sample.kind);
    kind.processes += 1;
    const before = first.get(sample.pid)?.cpuTicks ?? 0;
    kind.cores += (sample.cpuTicks - before) / CLOCK_TICKS_PER_SECOND / Math.max(elapsedSeconds, 1);
  }
  const list = [...kinds.values()].sort((a, b) => b.pssMiB - a.pssMiB);
  return {
    kinds: list,
    pssMiB: list.reduce((sum, kind) => sum + kind.pssMiB, 0),
    cores: list.reduce((sum, kind) => sum + kind.cores, 0),
  };
}
