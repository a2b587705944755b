import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { hashApiKey } from '../../shared/accounts/api-keys.js';
import {
  type AuthenticatedKey,
  findActiveKeyByHash,
  KEY_USE_RECORD_INTERVAL_MS,
  touchApiKey,
} from '../../shared/accounts/keys-store.js';
import { AppError, ForbiddenError, SpecErrors, UnauthorizedError } from '../../shared/infra/errors.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AppState } from '../context.js';
import type { RateLimits } from './rate-limits.js';
import { publicOriginOf, unsafeCrossSiteRefusal } from './same-origin.js';

const MAX_KEY_LENGTH = 256;

export interface UserAuthOptions {
  /**
   * Also take the key as `Authorization: Bearer <key>` when there is no X-API-Key (the MCP endpoint:
   * MCP clients configure a bearer token more readily than a custom header).
   */
  bearer?: boolean;
  /**
   * Not counted against, nor refused by, the key's request rate (RATE_LIMIT_PER_KEY_PER_MINUTE): for
   * stopping a bot, which must get through however the key spent its budget. Failed authentications
   * still count against the address.
   */
  unmetered?: boolean;
}

/**
 * The user of a presented API key, with the same checks on every way in (REST, the WebSocket feed):
 * an address past its failed-authentication limit gets 429 before the key is looked up; a missing or
 * unknown key is 401 `Unauthorized` and counts as a failure of the address; a key past its request
 * rate gets 429 (all with Retry-After). While Postgres is down the lookup throws its error (503).
 */
export async function authenticateApiKey(
  db: Knex,
  limits: RateLimits,
  address: string,
  presented: string | undefined,
  log: Logger,
  options: Pick<UserAuthOptions, 'unmetered'> = {},
): Promise<AuthenticatedKey> {
  await limits.assertMayAuthenticate(address);
  const auth =
    presented && presented.length <= MAX_KEY_LENGTH
      ? await findActiveKeyByHash(db, hashApiKey(presented))
      : undefined;
  if (!auth) {
    await limits.authenticationFailed(address);
    throw new UnauthorizedError(SpecErrors.unauthorized);
  }
  if (!options.unmetered) await limits.request(auth.keyId);
  if (!auth.lastUsedAt || Date.now() - auth.lastUsedAt.getTime() >= KEY_USE_RECORD_INTERVAL_MS) {
    touchApiKey(db, auth.keyId).catch((error: unknown) =>
      log.warn({ err: error }, 'could not record key use'),
    );
  }
  return auth;
}

/**
 * X-API-Key (or, with `bearer`, `Authorization: Bearer`) → the key's user (authenticateApiKey), or
 * 401 `Unauthorized`. Runs before anything reads the request body.
 */
export function requireUser(
  db: Knex,
  limits: RateLimits,
  options: UserAuthOptions = {},
): Middleware<AppState> {
  return async (ctx, next) => {
    const presented =
      ctx.get('X-API-Key') || (options.bearer ? bearerToken(ctx.get('Authorization')) : undefined);
    ctx.state.auth = await authenticateApiKey(db, limits, ctx.ip, presented, ctx.state.log, options);
    return next();
  };
}

/**
 * The operator's admin key, as `X-Admin-API-Key` (Vexa's header, for API clients) or as the password
 * of HTTP Basic auth (so a browser can open Bull Board). Without a configured key the admin API is off.
 * A browser that was given Basic credentials sends them with every request to this host, whichever
 * site made it, so a state-changing request authenticated by Basic auth is taken only from this
 * service's own pages (unsafeCrossSiteRefusal); the X-Admin-API-Key header, which a page on another
 * site can't add, is unaffected.
 */
export function requireAdmin(
  adminKey: string | undefined,
  limits: RateLimits,
  options: { browserPrompt?: boolean; publicBaseUrl?: string | undefined } = {},
): Middleware<AppState> {
  const publicOrigin = publicOriginOf(options.publicBaseUrl);
  return async (ctx, next) => {
    if (!adminKey) throw new AppError(403, 'Admin API is disabled: set ADMIN_API_KEY to enable it');
    const headerKey = ctx.get('X-Admin-API-Key');
    const basicKey = headerKey ? undefined : basicAuthPassword(ctx.get('Authorization'));
    if (basicKey !== undefined) {
      const refusal = unsafeCrossSiteRefusal(ctx, publicOrigin);
      if (refusal) throw new ForbiddenError(refusal);
    }
    await limits.assertMayAuthenticate(ctx.ip);
    const presented = headerKey || basicKey;
    if (presented && constantTimeEquals(presented, adminKey)) return next();
    await limits.authenticationFailed(ctx.ip);
    const challenge: Record<string, string> = options.browserPrompt
      ? { 'WWW-Authenticate': 'Basic realm="meetbot admin", charset="UTF-8"' }
      : {};
    throw new AppError(options.browserPrompt ? 401 : 403, 'Invalid or missing admin API key', challenge);
  };
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

function basicAuthPassword(header: string): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : undefined;
}

function constantTimeEquals(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
