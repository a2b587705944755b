/** Percentile summaries and the Redis INFO text the fleet bench reads and prints. */
import { percentile } from '../support/percentile.js';

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function spread(values: number[]): Spread {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length ? values.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY) : Number.NaN,
  };
}

/** "p50 / p95 / p99 / max ms (n)" with whole milliseconds, or "–" without samples. */
export function spreadText(figure: Spread): string {
  if (figure.n === 0 || Number.isNaN(figure.p50)) return '–';
  const ms = (value: number) => Math.round(value).toLocaleString('en-US');
  return `${ms(figure.p50)} / ${ms(figure.p95)} / ${ms(figure.p99)} / ${ms(figure.max)} ms (n ${figure.n.toLocaleString('en-US')})`;
}

/** INFO's `name:value` lines as a record (sections merged). */
export function parseInfo(text: string): Record<string, string> {
  const info: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) info[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return info;
}

/** INFO commandstats: calls and microseconds per command. */
export function commandStats(info: Record<string, string>): Map<string, { calls: number; usec: number }> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const [name, value] of Object.entries(info)) {
    if (!name.startsWith('cmdstat_')) continue;
    const fields = Object.fromEntries(value.split(',').map((pair) => pair.split('=') as [string, string]));
    stats.set(name.slice('cmdstat_'.length), { calls: Number(fields.calls), usec: Number(fields.usec) });
  }
  return stats;
}

/** The commands that took Redis the most time between two readings, busiest first. */
export function busiestCommands(
  before: Map<string, { calls: number; usec: number }>,
  after: Map<string, { calls: number; usec: number }>,
  seconds: number,
  top = 8,
): Array<{ command: string; perSecond: number; usecPerCall: number; shareOfCore: number }> {
  return [...after]
    .map(([command, now]) => {
      const then = before.get(command) ?? { calls: 0, usec: 0 };
      const calls = now.calls - then.calls;
      const usec = now.usec - then.usec;
      return {
        command,
        perSecond: calls / seconds,
        usecPerCall: calls > 0 ? usec / calls : 0,
        shareOfCore: usec / 1e6 / seconds,
      };
    })
    .filter((row) => row.perSecond > 0)
    .sort((a, b) => b.shareOfCore - a.shareOfCore)
    .slice(0, top);
}

/** Lines of pino JSON logs: counted by level, the errors' messages kept with their counts. */
export class LogTally {
  warnings = 0;
  errors = 0;
  readonly messages = new Map<string, number>();

  constructor(private readonly onLine?: (line: Record<string, unknown>) => void) {}

  /** A feed for one output (stdout, stderr): lines split across chunks are joined again. */
  source(): (chunk: Buffer) => void {
    let partial = '';
    return (chunk) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) this.line(line);
    };
  }

  private line(raw: string): void {
    if (!raw.trim()) return;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(raw);
    } catch {
      // Not pino's: a crash's stack or Node's own warning, counted as an error.
      this.errors += 1;
      this.keep(raw.slice(0, 160));
      return;
    }
    this.onLine?.(entry);
    const level = Number(entry.level ?? 0);
    if (level >= 50) {
      this.errors += 1;
      const err = entry.err as { message?: string } | undefined;
      this.keep(`${String(entry.msg ?? '')}${err?.message ? `: ${err.message.slice(0, 120)}` : ''}`);
    } else if (level >= 40) {
      this.warnings += 1;
      this.keep(`(warn) ${String(entry.msg ?? '')}`);
    }
  }

  private keep(message: string): void {
    this.messages.set(message, (this.messages.get(message) ?? 0) + 1);
  }

  /** The most frequent messages, most first. */
  top(count = 6): Array<{ message: string; count: number }> {
    return [...this.messages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([message, n]) => ({ message, count: n }));
  }
}
