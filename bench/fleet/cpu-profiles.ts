/**
 * Where a process's CPU went, from the V8 CPU profiles `node --cpu-prof` writes at exit (the fleet
 * bench's --cpu-prof): self time by module (a package under node_modules, a file of ours, Node's
 * internals) and by function, over the process's whole life.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/** What a frame's URL belongs to: a package, a file of ours, Node itself, or V8's own bookkeeping. */
function moduleOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return `(${functionName || 'anonymous'})`;
  const path = url.replace(/^file:\/\//, '');
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (packageMatch) return packageMatch[1]!;
  if (path.startsWith('node:')) return 'node internals';
  if (path.startsWith(ROOT)) return relative(ROOT, path);
  return path;
}

export interface ProfileSummary {
  pid: number;
  seconds: number;
  /** The share of the run the thread was not idle. */
  busy: number;
  /** Shares of its busy time. */
  byModule: Array<{ name: string; share: number }>;
  byFunction: Array<{ name: string; share: number }>;
}

/**
 * Each process's main-thread profile in `dir` (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`;
 * other threads, such as tsx's loader, are left out), its busiest modules and functions by self time.
 */
export function summariseProfiles(dir: string, top = 10): ProfileSummary[] {
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((file) => /\.\d+\.0\.\d+\.cpuprofile$/.test(file));
  } catch {
    return [];
  }
  return files.map((file) => {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const hits = new Map<number, number>();
    for (const sample of profile.samples) hits.set(sample, (hits.get(sample) ?? 0) + 1);
    let idle = 0;
    for (const node of profile.nodes)
      if (node.callFrame.functionName === '(idle)') idle += hits.get(node.id) ?? 0;
    const busy = Math.max(1, profile.samples.length - idle);
    const byModule = new Map<string, number>();
    const byFunction = new Map<string, number>();
    for (const node of profile.nodes) {
      const count = hits.get(node.id) ?? 0;
      if (count === 0 || node.callFrame.functionName === '(idle)') continue;
      const module = moduleOf(node.callFrame);
      byModule.set(module, (byModule.get(module) ?? 0) + count);
      const name = `${node.callFrame.functionName || '(anonymous)'} ${module}:${node.callFrame.lineNumber + 1}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + count);
    }
    const ranked = (map: Map<string, number>) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([name, count]) => ({ name, share: count / busy }));
    return {
      pid: Number(/\.(\d+)\.0\.\d+\.cpuprofile$/.exec(file)?.[1]),
      seconds: (profile.endTime - profile.startTime) / 1e6,
      busy: busy / Math.max(1, profile.samples.length),
      byModule: ranked(byModule),
      byFunction: ranked(byFunction),
    };
  });
}

/** Each profile in `dir`, summarised on stdout under its process's name (`names`, by pid). */
export function printProfiles(dir: string, names: Map<number, string>): void {
  for (const summary of summariseProfiles(dir)) {
    const share = (rows: Array<{ name: string; share: number }>) =>
      rows.map((row) => `${(row.share * 100).toFixed(1)} % ${row.name}`).join('; ');
    process.stdout.write(
      `\nprofile of ${names.get(summary.pid) ?? `pid ${summary.pid}`}: busy ${(summary.busy * 100).toFixed(0)} % of ${summary.seconds.toFixed(0)} s; of that:\n` +
        `  modules: ${share(summary.byModule)}\n  functions: ${share(summary.byFunction)}\n`,
    );
  }
}
