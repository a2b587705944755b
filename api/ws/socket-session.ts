import type { RawData, WebSocket } from 'ws';
import { type AuthenticatedKey, findActiveKeyByHash } from '../../shared/accounts/keys-store.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { OpenFeeds } from '../live/open-feeds.js';
import type { LiveSlot } from '../live/slots.js';
import type { KeySource } from './handshake.js';

/** How long a shutdown (or a dropped slow reader) waits for the client's close before cutting the connection. */
export const CLOSE_WAIT_MS = 3000;

export interface SocketSessionOptions {
  /** How the logs name the socket: "live socket", "audio socket". */
  label: string;
  log: Logger;
  db: Knex;
  openFeeds: OpenFeeds;
  /** WS_PING_INTERVAL_SECONDS, in ms */
  pingIntervalMs: number;
  /** How long a socket that came without a key has to send its `auth` message. */
  authTimeoutMs: number;
  /** Client messages waiting for their turn: more is a client sending without reading the answers. */
  maxPendingMessages: number;
  /** The error code and close code for a client over `maxPendingMessages`. */
  overflow: { error: string; closeCode: number };
  /** Closing on a revoked key, and on the API's shutdown (with this reason). */
  closeCodes: { unauthorized: number; goingAway: number };
  shutdownReason: string;
}

/**
 * What every authenticated WebSocket of the API does the same way, from its upgrade to its close:
 * its client's messages handled one at a time in order (a bounded queue), the key taken with the
 * upgrade or from a first `auth` message within `authTimeoutMs`, a ping every `pingIntervalMs`
 * (a client that did not answer the last one is gone) that also keeps the socket's slot and checks
 * its key still works, an error frame before any close it decides, and on the API's shutdown a
 * 1001 close. `/ws` (session.ts) and `/meetings/{id}/audio` (audio-session.ts) add what they send.
 */
export abstract class SocketSession {
  protected log: Logger;
  protected auth: AuthenticatedKey | undefined;
  protected keyHash: string | undefined;
  protected slot: LiveSlot | undefined;
  protected closed = false;
  private alive = true;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private readonly heartbeat: NodeJS.Timeout;
  private authTimer: NodeJS.Timeout | undefined;
  private readonly unregister: () => void;
  private readonly onClosed: Array<() => void> = [];

  constructor(
    protected readonly ws: WebSocket,
    private readonly options: SocketSessionOptions,
    presented: { key: string; source: KeySource } | undefined,
  ) {
    this.log = options.log;
    ws.on('message', (data, isBinary) => this.enqueue(() => this.handle(data, isBinary)));
    ws.on('pong', () => {
      this.alive = true;
    });
    // Protocol errors (a message over WS_MESSAGE_MAX_BYTES, bad framing): ws closes the socket itself.
    ws.on('error', (error) => this.log.info({ err: error }, `${options.label} protocol error`));
    ws.on('close', (code) => this.cleanUp(code));
    this.heartbeat = setInterval(() => this.beat(), options.pingIntervalMs);
    this.unregister = options.openFeeds.register(() => this.shutDown());
    // Queued, so it runs once the subclass is built.
    if (presented) this.enqueue(() => this.authenticate(presented.key, presented.source));
    else
      this.authTimer = setTimeout(
        () => this.enqueue(() => this.authenticate(undefined, 'message')),
        options.authTimeoutMs,
      );
  }

  /** One client message; before authentication the one message taken is `auth`. */
  protected abstract handle(data: RawData, isBinary: boolean): Promise<void>;
  /** Checks the key (and what the socket needs), then sets `auth`, `keyHash` and `slot`. */
  protected abstract authenticate(key: string | undefined, source: KeySource | 'message'): Promise<void>;
  /** A message's task failed in a way it did not handle. */
  protected abstract unexpected(error: unknown): void;
  /** The socket's error frame. */
  protected abstract errorFrame(error: string, details: string, retryAfter?: number): unknown;
  /** The socket closed: releases what the subclass holds; returns what its close log line says. */
  protected abstract released(): Record<string, unknown>;

  /** Stops waiting for an `auth` message (the key came). */
  protected keyArrived(): void {
    clearTimeout(this.authTimer);
  }

  /** Runs `task` after the ones queued before it; a client that keeps too many waiting is closed. */
  protected enqueue(task: () => Promise<void>): void {
    if (this.closed) return;
    if (this.pending >= this.options.maxPendingMessages) {
      const { error, closeCode } = this.options.overflow;
      this.fail(error, 'Too many messages waiting for an answer', closeCode);
      return;
    }
    this.pending += 1;
    this.queue = this.queue
      .then(() => (this.closed ? undefined : task()))
      .catch((error: unknown) => this.unexpected(error))
      .finally(() => {
        this.pending -= 1;
      });
  }

  protected sendJson(frame: unknown): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame));
  }

  /** An error frame, then the close (its code and reason say the same). */
  protected fail(error: string, details: string, closeCode: number, retryAfter?: number): void {
    if (this.closed) return;
    this.sendJson(this.errorFrame(error, details, retryAfter));
    this.close(closeCode, details);
  }

  protected close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    // A close reason has at most 123 bytes.
    this.ws.close(code, Buffer.from(reason).subarray(0, 123).toString());
  }

  /** Pings the client (one that did not answer the last ping is gone), keeps its slot, checks its key still works. */
  private beat(): void {
    if (!this.alive) {
      this.log.info(`${this.options.label} did not answer the last ping; dropping it`);
      this.closed = true;
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
    if (!this.auth || !this.keyHash || this.closed) return;
    void this.slot?.refresh();
    findActiveKeyByHash(this.options.db, this.keyHash).then(
      (auth) => {
        if (!auth)
          this.fail(
            'invalid_api_key',
            'Unauthorized: the API key was revoked',
            this.options.closeCodes.unauthorized,
          );
      },
      // Unknown while Postgres is away: the next beat asks again.
      () => undefined,
    );
  }

  /** On the API's shutdown: close with 1001, and drop the connection if the client does not answer. */
  private shutDown(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === this.ws.CLOSED) {
        resolve();
        return;
      }
      this.onClosed.push(resolve);
      this.close(this.options.closeCodes.goingAway, this.options.shutdownReason);
      setTimeout(() => this.ws.terminate(), CLOSE_WAIT_MS).unref();
    });
  }

  private cleanUp(code: number): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.authTimer);
    const logged = this.released();
    this.unregister();
    void this.slot?.release();
    if (this.auth) this.log.info({ code, ...logged }, `${this.options.label} closed`);
    for (const resolve of this.onClosed.splice(0)) resolve();
  }
}
