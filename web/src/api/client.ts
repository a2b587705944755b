/**
 * The API's address for a path: the page is served at `<API>/app/`, so the API is the page's parent,
 * whatever path a proxy mounts it under.
 */
export function apiUrl(path: string): string {
  return new URL(`..${path}`, location.href).toString();
}

/** An answer other than 2xx, with the API's `{ "error": "..." }` message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Api {
  /** JSON in and out; `undefined` body sends none. Throws ApiError for any non-2xx answer. */
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The raw answer (exports, streams), with the key header; throws ApiError for non-2xx. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** What an answer says went wrong: its `error` member, or the status line. */
async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body: unknown = await response.json();
    if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string')
      message = (body as { error: string }).error;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, message);
}

/**
 * The API on this page's own origin, the key in the X-API-Key header (never in a URL). A 401 means
 * the key no longer works (revoked): `onUnauthorized` signs the user out.
 */
export function apiClient(key: string, onUnauthorized: () => void): Api {
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('X-API-Key', key);
    const response = await fetch(apiUrl(path), { ...init, headers, credentials: 'omit', cache: 'no-store' });
    if (response.ok) return response;
    const error = await errorOf(response);
    if (response.status === 401) onUnauthorized();
    throw error;
  };
  return {
    fetch: call,
    async request<T>(method: string, path: string, body?: unknown): Promise<T> {
      const init: RequestInit = { method, headers: { Accept: 'application/json' } };
      if (body !== undefined) {
        init.body = JSON.stringify(body);
        init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
      }
      const response = await call(path, init);
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    },
  };
}

/** Checks a key before keeping it: any authenticated read tells a working key from a wrong one. */
export async function checkKey(key: string): Promise<void> {
  const response = await fetch(apiUrl('/meetings?limit=1'), {
    headers: { 'X-API-Key': key, Accept: 'application/json' },
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!response.ok) throw await errorOf(response);
}
