/**
 * The API key lives in this tab's sessionStorage only: gone when the tab closes, never in a URL,
 * a cookie or localStorage.
 */
const KEY = 'meetbot.apiKey';

export function storedKey(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // storage unavailable: nothing was kept
  }
}
