/**
 * Whether an error from loading the meeting page means the page could not be reached at all (DNS,
 * refused or reset connection, TLS, timeout), and if so a short description for the failure detail.
 * Anything else (a bug, a crashed browser) is not this and stays a crash.
 */
export function unreachablePageDetail(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const netError = /net::(ERR_[A-Z0-9_]+)/.exec(error.message)?.[1];
  if (netError) return `the meeting page could not be loaded (${netError})`;
  if (error.name === 'TimeoutError') return 'the meeting page did not load in time';
  return undefined;
}
