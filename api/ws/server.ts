import { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Config } from '../../shared/infra/config.js';
import { writeRawError } from '../http-server.js';
import type { LiveFeedOptions } from '../live/feed.js';
import { type AudioSocketDeps, AudioSocketSession } from './audio-session.js';
import {
  asksForWebSocket,
  audioSocketMeetingId,
  clientAddress,
  handshakeRefusal,
  presentedKey,
  requestTarget,
  WS_PATH,
} from './handshake.js';
import { type LiveSocketDeps, LiveSocketSession, type LiveSocketSettings } from './session.js';

export interface LiveSocketServerDeps extends LiveSocketDeps {
  /** The HTTP app (Koa's callback): it answers the upgrade requests that are not ours to take. */
  handleRequest: (request: IncomingMessage, response: ServerResponse) => void;
  /** WS_MESSAGE_MAX_BYTES: a larger message closes the socket (1009). */
  messageMaxBytes: number;
  trustProxy: boolean;
  publicBaseUrl: string | undefined;
  /** The meetings' audio sockets (`/meetings/{id}/audio`); without them that path is not upgraded. */
  audio?: AudioSocketDeps;
}

/** The largest message a client may send on an audio socket (an `auth` or a `ping`); more closes it (1009). */
export const AUDIO_MESSAGE_MAX_BYTES = 4096;

function hasBody(request: IncomingMessage): boolean {
  const length = Number(request.headers['content-length'] ?? 0);
  return request.headers['transfer-encoding'] !== undefined || (Number.isFinite(length) && length > 0);
}

/**
 * Node hands every request with an Upgrade header to the upgrade listener once there is one (an
 * h2c upgrade from `curl --http2` too). One that is not a WebSocket upgrade to /ws (or to a
 * meeting's audio) is served by the app as the plain request it also is (HTTP lets a server ignore
 * Upgrade), then the connection closes; Node has already stopped parsing its body, so one with a
 * body is refused instead.
 */
function serveWithoutUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  handleRequest: LiveSocketServerDeps['handleRequest'],
): void {
  if (hasBody(request)) {
    writeRawError(
      socket,
      400,
      `Bad request: only ${WS_PATH} and /meetings/{id}/audio take an Upgrade (to a WebSocket); send this request without one`,
    );
    return;
  }
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.on('finish', () => {
    response.detachSocket(socket as Socket);
    socket.end();
  });
  handleRequest(request, response);
}

/**
 * The WebSocket live feed on the API's HTTP server: upgrades at /ws, after the same origin rule as
 * the rest of the API, into a LiveSocketSession each, and at /meetings/{id}/audio (with `deps.audio`)
 * into an AudioSocketSession each. Sockets are closed by the API's shutdown
 * through deps.openFeeds (1001).
 */
export function attachLiveSockets(server: Server, deps: LiveSocketServerDeps): void {
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: deps.messageMaxBytes,
    // Compression costs memory per socket and opens the way to compression bombs; frames are small JSON.
    perMessageDeflate: false,
    clientTracking: false,
  });
  const audioSockets = new WebSocketServer({
    noServer: true,
    maxPayload: AUDIO_MESSAGE_MAX_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const publicOrigin = deps.publicBaseUrl ? new URL(deps.publicBaseUrl).origin : undefined;
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = requestTarget(request);
    const audioMeetingId = target && deps.audio ? audioSocketMeetingId(target.pathname) : undefined;
    if (
      !target ||
      (target.pathname !== WS_PATH && audioMeetingId === undefined) ||
      !asksForWebSocket(request)
    ) {
      serveWithoutUpgrade(request, socket, deps.handleRequest);
      return;
    }
    if (deps.openFeeds.closing) {
      writeRawError(socket, 503, 'Shutting down; reconnect in a moment', { headers: { 'Retry-After': '1' } });
      return;
    }
    const refusal = handshakeRefusal(request, { trustProxy: deps.trustProxy, publicOrigin });
    if (refusal) {
      writeRawError(socket, refusal.status, refusal.message, { headers: refusal.headers ?? {} });
      return;
    }
    const client = {
      address: clientAddress(request, deps.trustProxy),
      presented: presentedKey(request, target),
    };
    const audio = deps.audio;
    if (audio && audioMeetingId !== undefined) {
      audioSockets.handleUpgrade(request, socket, head, (ws) => {
        new AudioSocketSession(ws, audio, client, audioMeetingId);
      });
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      new LiveSocketSession(ws, deps, client);
    });
  });
}

/** How long a socket that came without a key may take to send its `auth` message. */
export const AUTH_TIMEOUT_MS = 10_000;

/** The settings of the WebSocket feed a deployment's configuration gives (docs/settings.md, WS_*). */
export function liveSocketSettings(
  config: Pick<Config, 'WS_SUBSCRIPTIONS_PER_SOCKET' | 'WS_PING_INTERVAL_SECONDS'>,
  feed: LiveFeedOptions,
): LiveSocketSettings {
  return {
    subscriptionsPerSocket: config.WS_SUBSCRIPTIONS_PER_SOCKET,
    pingIntervalMs: config.WS_PING_INTERVAL_SECONDS * 1000,
    authTimeoutMs: AUTH_TIMEOUT_MS,
    feed,
  };
}

/** How often an audio socket looks at its meeting's status again (ends with it, follows a relaunch). */
export const AUDIO_STATUS_CHECK_MS = 2000;

/** A socket's place in its key's count stops counting 3 pings after its last (its replica died). */
export function socketSlotStaleMs(config: Pick<Config, 'WS_PING_INTERVAL_SECONDS'>): number {
  return 3 * config.WS_PING_INTERVAL_SECONDS * 1000;
}
