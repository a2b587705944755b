/** API requests timed one at a time, a flood of searches beside them, and their timings as table cells. */

export interface Timings {
  ms: number[];
  failed: number;
}

/** One request with the key; status 0 when it failed or timed out. */
export async function timed(
  base: string,
  path: string,
  token: string,
  timeoutMs = 30_000,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      headers: { 'X-API-Key': token },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

/** GET /meetings for each key in turn, one request at a time, for `seconds`. */
export async function meetingsFor(base: string, tokens: string[], seconds: number): Promise<Timings[]> {
  const results = tokens.map(() => ({ ms: [] as number[], failed: 0 }));
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    for (const [index, token] of tokens.entries()) {
      const answer = await timed(base, '/meetings', token);
      if (answer.status === 200) results[index]!.ms.push(answer.ms);
      else results[index]!.failed += 1;
    }
  }
  return results;
}

/**
 * `searchers` loops of searches for `queries` in turn with one key, each starting its next when one
 * answers; a refused one is tried again after 100 ms. `stop()` says how many answers had each status.
 */
export function startFlood(
  base: string,
  token: string,
  searchers: number,
  queries: string[],
): { stop(): Promise<Record<string, number>> } {
  let running = true;
  const outcomes: Record<string, number> = {};
  const loops = Array.from({ length: searchers }, async (_, index) => {
    let round = index;
    while (running) {
      const q = queries[round % queries.length]!;
      round += 1;
      const answer = await timed(base, `/search?q=${encodeURIComponent(q)}&limit=20`, token, 60_000);
      outcomes[answer.status] = (outcomes[answer.status] ?? 0) + 1;
      if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** A row of the results table: answers, p50, p95, max, failures and the searches' outcomes. */
export function row(mode: string, during: string, who: string, timings: Timings, searches = ''): string {
  const ms = timings.ms;
  return `| ${mode} | ${during} | ${who} | ${ms.length} | ${pct(ms, 50)} | ${pct(ms, 95)} | ${ms.length ? Math.max(...ms).toFixed(1) : '–'} | ${timings.failed} | ${searches} |`;
}

export function summary(timings: Timings): string {
  return `${timings.ms.length} answers, p50 ${pct(timings.ms, 50)} ms, p95 ${pct(timings.ms, 95)} ms, ${timings.failed} not 200`;
}

function pct(list: number[], p: number): string {
  if (list.length === 0) return '–';
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1);
}
