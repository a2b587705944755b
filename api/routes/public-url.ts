/**
 * The address clients reach this API at, for links in answers (recordings' media_url): the
 * deployment's PUBLIC_BASE_URL when set (it may carry a path prefix), else the address the request
 * came to (X-Forwarded-Proto/Host count only when TRUST_PROXY is on). Not Koa 3's `ctx.origin`:
 * that is the request's Origin header.
 */
export function publicBaseUrl(
  ctx: { protocol: string; host: string },
  configured: string | undefined,
): string {
  return (configured ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, '');
}
