/**
 * An error its thrower knows to be "not now": a store other than Postgres (recording storage) that
 * could not be reached. Consumers retry it like a Postgres outage, never dead-letter for it.
 */
export class TransientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/** Node's codes for a connection that could not be made or was lost on the way. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs that say "not now" rather than "never": the server is shutting down, starting up or
 * out of connections, the connection broke, or the transaction lost a race and may simply run again.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);

/** What node-postgres and Knex say when a connection dies or none can be had, without a code. */
const TRANSIENT_MESSAGES = [
  /connection terminated/i,
  /connection error and is not queryable/i,
  /timeout acquiring a connection/i,
  /terminating connection/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/**
 * True when a Postgres operation failed because the database could not be reached or went away
 * (a restart, a failover, a network blip), so the same operation may succeed later; false when the
 * operation itself was refused (a constraint, bad data, a bug). Callers retry the first kind and
 * must never treat it as bad input.
 */
export function isTransientStoreError(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.some(isTransientStoreError);
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof TransientError) return true;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATES.has(code)) return true;
    // Class 08: connection exceptions.
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (name === 'KnexTimeoutError') return true;
  return typeof message === 'string' && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message));
}
