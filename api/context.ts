import type { RouterContext } from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { AuthenticatedKey } from '../shared/accounts/keys-store.js';
import type { Logger } from '../shared/infra/logger.js';

export interface AppState {
  requestId: string;
  log: Logger;
  /** Set by the user-auth middleware. */
  auth?: AuthenticatedKey;
  /** The parsed JSON request body, set by the json-body middleware. */
  body?: unknown;
}

export type AppContext = ParameterizedContext<AppState>;
export type AppRouterContext = RouterContext<AppState>;

export function requireAuth(ctx: { state: AppState }): AuthenticatedKey {
  if (!ctx.state.auth) throw new Error('route is missing the user-auth middleware');
  return ctx.state.auth;
}
