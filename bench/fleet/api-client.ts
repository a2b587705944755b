/**
 * The fleet bench's requests to the API: a user's key or the admin key, a JSON body, the answer's
 * JSON (or text) and how long it took. A request that fails outright answers status 0 with the error.
 */
export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON answers, read field by field
  body: any;
  ms: number;
}

export async function callApi(
  base: string,
  method: string,
  path: string,
  options: { key?: string; admin?: string; json?: unknown } = {},
): Promise<ApiAnswer> {
  const begun = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.key && { 'X-API-Key': options.key }),
        ...(options.admin && { 'X-Admin-API-Key': options.admin }),
        ...(options.json !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body, ms: performance.now() - begun };
  } catch (error) {
    return { status: 0, body: (error as Error).message, ms: performance.now() - begun };
  }
}

/** A failed answer's tally key: its status and the start of its body. */
export function failureKey(answer: ApiAnswer): string {
  return `${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`;
}
