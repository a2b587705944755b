import type { Middleware } from 'koa';
import { ForbiddenError } from '../../shared/infra/errors.js';
import type { AppState } from '../context.js';

/** Methods a page on another site may trigger without changing anything. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing requests a browser sends on behalf of another site. A browser keeps the
 * operator's Basic credentials for Bull Board and attaches them to a cross-site form POST, so the
 * credentials alone don't prove the operator meant it: Sec-Fetch-Site (modern browsers) and Origin
 * (every browser on a POST) say where the request came from. Clients that send neither (curl,
 * scripts) are not browsers acting for someone else and pass.
 */
export function sameOriginOnly(publicBaseUrl: string | undefined): Middleware<AppState> {
  const publicOrigin = publicBaseUrl ? new URL(publicBaseUrl).origin : undefined;
  return async (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const site = ctx.get('Sec-Fetch-Site').toLowerCase();
    if (site === 'cross-site' || site === 'same-site') {
      throw new ForbiddenError(`Cross-site request refused (Sec-Fetch-Site: ${site})`);
    }
    const origin = ctx.get('Origin');
    // Koa 3's ctx.origin is the Origin header itself; this service's own origin is built from the
    // protocol and host, which follow X-Forwarded-Proto/Host only under TRUST_PROXY.
    const ownOrigin = `${ctx.protocol}://${ctx.host}`;
    if (origin && origin !== ownOrigin && origin !== publicOrigin) {
      throw new ForbiddenError('Cross-site request refused: Origin is not this service');
    }
    return next();
  };
}
