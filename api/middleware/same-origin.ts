import type { Context, Middleware } from 'koa';
import { ForbiddenError } from '../../shared/infra/errors.js';
import type { AppState } from '../context.js';

/** Methods a page on another site may trigger without changing anything. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where a browser says a request came from, and this service's own origins. */
export interface RequestSite {
  /** The Sec-Fetch-Site header ('' when absent). */
  secFetchSite: string;
  /** The Origin header ('' when absent). */
  origin: string;
  /** This service as the request addressed it: `<protocol>://<host>`. */
  ownOrigin: string;
  /** PUBLIC_BASE_URL's origin, when set. */
  publicOrigin: string | undefined;
}

/**
 * Why a browser request sent on behalf of another site is refused, or undefined when it is not one.
 * Sec-Fetch-Site (modern browsers) and Origin (every browser on a POST and on a WebSocket upgrade)
 * say where the request came from; clients that send neither (curl, scripts, server-side WebSocket
 * libraries) are not browsers acting for someone else and pass.
 */
export function crossSiteRefusal(site: RequestSite): string | undefined {
  const fetchSite = site.secFetchSite.toLowerCase();
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') {
    return `Cross-site request refused (Sec-Fetch-Site: ${fetchSite})`;
  }
  if (site.origin && site.origin !== site.ownOrigin && site.origin !== site.publicOrigin) {
    return 'Cross-site request refused: Origin is not this service';
  }
  return undefined;
}

/**
 * Why this request is a state-changing one a browser sent on behalf of another site (403 text), or
 * undefined: safe methods and requests from this service's own pages pass.
 */
export function unsafeCrossSiteRefusal(ctx: Context, publicOrigin: string | undefined): string | undefined {
  if (SAFE_METHODS.has(ctx.method)) return undefined;
  return crossSiteRefusal({
    secFetchSite: ctx.get('Sec-Fetch-Site'),
    origin: ctx.get('Origin'),
    // Koa 3's ctx.origin is the Origin header itself; this service's own origin is built from the
    // protocol and host, which follow X-Forwarded-Proto/Host only under TRUST_PROXY.
    ownOrigin: `${ctx.protocol}://${ctx.host}`,
    publicOrigin,
  });
}

/** PUBLIC_BASE_URL's origin, when set. */
export function publicOriginOf(publicBaseUrl: string | undefined): string | undefined {
  return publicBaseUrl ? new URL(publicBaseUrl).origin : undefined;
}

/**
 * Refuses state-changing requests a browser sends on behalf of another site. A browser keeps the
 * operator's Basic credentials for Bull Board and attaches them to a cross-site form POST, so the
 * credentials alone don't prove the operator meant it (crossSiteRefusal).
 */
export function sameOriginOnly(publicBaseUrl: string | undefined): Middleware<AppState> {
  const publicOrigin = publicOriginOf(publicBaseUrl);
  return async (ctx, next) => {
    const refusal = unsafeCrossSiteRefusal(ctx, publicOrigin);
    if (refusal) throw new ForbiddenError(refusal);
    return next();
  };
}
