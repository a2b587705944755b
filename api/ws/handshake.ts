import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { bearerToken } from '../middleware/auth.js';
import { crossSiteRefusal } from '../middleware/same-origin.js';

/**
 * What the API reads from a WebSocket upgrade request before it upgrades: the request never
 * reaches Koa, so the few things Koa would say of it (client address, own origin under
 * TRUST_PROXY) are read here the way Koa reads them.
 */

export const WS_PATH = '/ws';

/** The audio WebSocket of one meeting: `/meetings/{id}/audio` (api/ws/audio-session.ts). */
const AUDIO_PATH = /^\/meetings\/([0-9]{1,15})\/audio$/;

/** The meeting id of an audio socket's path, or undefined for any other path. */
export function audioSocketMeetingId(pathname: string): number | undefined {
  const match = AUDIO_PATH.exec(pathname);
  if (!match) return undefined;
  const id = Number(match[1]);
  return id >= 1 ? id : undefined;
}

function header(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The first entry of a comma-separated header that proxies append to (X-Forwarded-*). */
function firstListed(request: IncomingMessage, name: string): string {
  return header(request, name).split(',')[0]?.trim() ?? '';
}

/** The request's path and query; undefined for a target that is not a path. */
export function requestTarget(request: IncomingMessage): URL | undefined {
  const target = request.url ?? '';
  if (!target.startsWith('/')) return undefined;
  try {
    return new URL(target, 'http://localhost');
  } catch {
    return undefined;
  }
}

/** An upgrade to a WebSocket (other upgrades, such as h2c, are not ours to take). */
export function asksForWebSocket(request: IncomingMessage): boolean {
  return header(request, 'upgrade').toLowerCase() === 'websocket';
}

/** As Koa's ctx.ip: under TRUST_PROXY the first X-Forwarded-For address, else the peer's. */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? firstListed(request, 'x-forwarded-for') : '';
  return forwarded || request.socket.remoteAddress || '';
}

/** As Koa's `${ctx.protocol}://${ctx.host}`: under TRUST_PROXY, X-Forwarded-Proto and -Host first. */
export function ownOrigin(request: IncomingMessage, trustProxy: boolean): string {
  const encrypted = (request.socket as TLSSocket).encrypted === true;
  const protocol = encrypted ? 'https' : (trustProxy && firstListed(request, 'x-forwarded-proto')) || 'http';
  const host = (trustProxy && firstListed(request, 'x-forwarded-host')) || header(request, 'host');
  return `${protocol}://${host}`;
}

/** How a key came with the upgrade request. */
export type KeySource = 'x-api-key' | 'authorization' | 'query';

/**
 * The API key the upgrade request carries: `X-API-Key`, else `Authorization: Bearer`, else Vexa's
 * `?api_key=` (accepted for its clients; a key in a URL ends up in proxies' access logs, so the docs
 * steer browsers to the `auth` message instead, and this service never logs the URL).
 */
export function presentedKey(
  request: IncomingMessage,
  target: URL,
): { key: string; source: KeySource } | undefined {
  const headerKey = header(request, 'x-api-key');
  if (headerKey) return { key: headerKey, source: 'x-api-key' };
  const bearer = bearerToken(header(request, 'authorization'));
  if (bearer) return { key: bearer, source: 'authorization' };
  const queryKey = target.searchParams.get('api_key');
  if (queryKey) return { key: queryKey, source: 'query' };
  return undefined;
}

export interface HandshakeRefusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;

/**
 * Why a WebSocket upgrade to /ws is answered with an HTTP error instead, or undefined: a method
 * other than GET, a WebSocket version other than 13, a malformed key, or a browser page of another
 * site (the same rule as the rest of the API: the key alone does not prove its owner's page asked).
 */
export function handshakeRefusal(
  request: IncomingMessage,
  options: { trustProxy: boolean; publicOrigin: string | undefined },
): HandshakeRefusal | undefined {
  if (request.method !== 'GET') {
    return { status: 405, message: 'Method not allowed', headers: { Allow: 'GET' } };
  }
  if (header(request, 'sec-websocket-version') !== '13') {
    return {
      status: 426,
      message: 'Upgrade required: this server speaks WebSocket version 13',
      headers: { 'Sec-WebSocket-Version': '13' },
    };
  }
  if (!WEBSOCKET_KEY.test(header(request, 'sec-websocket-key'))) {
    return { status: 400, message: 'Bad request: invalid Sec-WebSocket-Key' };
  }
  const refusal = crossSiteRefusal({
    secFetchSite: header(request, 'sec-fetch-site'),
    origin: header(request, 'origin'),
    ownOrigin: ownOrigin(request, options.trustProxy),
    publicOrigin: options.publicOrigin,
  });
  return refusal ? { status: 403, message: refusal } : undefined;
}
