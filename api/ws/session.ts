import { randomUUID } from 'node:crypto';
import type { RawData, WebSocket } from 'ws';
import { hashApiKey } from '../../shared/accounts/api-keys.js';
import type { AuthenticatedKey } from '../../shared/accounts/keys-store.js';
import { sleep } from '../../shared/infra/async.js';
import {
  type AppError,
  BadRequestError,
  TooManyRequestsError,
  UnauthorizedError,
} from '../../shared/infra/errors.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { isTransientStoreError } from '../../shared/infra/store-errors.js';
import type { MeetingChangeListener } from '../../shared/meetings/changes.js';
import { LiveFeed, type LiveFeedOptions, type LiveItem } from '../live/feed.js';
import type { OpenFeeds } from '../live/open-feeds.js';
import type { LiveSlot, LiveSlots } from '../live/slots.js';
import { authenticateApiKey } from '../middleware/auth.js';
import type { RateLimits } from '../middleware/rate-limits.js';
import { parseInput } from '../middleware/validate.js';
import { errorFrame, liveItemFrames, type MeetingRef, subscribedFrame, unsubscribedFrame } from './frames.js';
import type { KeySource } from './handshake.js';
import {
  ACTIONS,
  authMessage,
  CloseCodes,
  type ErrorCode,
  type MeetingSelector,
  meetingsMessage,
} from './protocol.js';
import { SocketSession } from './socket-session.js';
import { findSelectedMeetings, removeSelected } from './subscriptions.js';

export interface LiveSocketSettings {
  /** WS_SUBSCRIPTIONS_PER_SOCKET */
  subscriptionsPerSocket: number;
  /** WS_PING_INTERVAL_SECONDS, in ms */
  pingIntervalMs: number;
  /** How long a socket that came without a key has to send its `auth` message. */
  authTimeoutMs: number;
  feed: LiveFeedOptions;
}

export interface LiveSocketDeps {
  db: Knex;
  changes: MeetingChangeListener;
  rateLimits: RateLimits;
  /** WS_SOCKETS_PER_KEY, across replicas */
  slots: LiveSlots;
  openFeeds: OpenFeeds;
  log: Logger;
  settings: LiveSocketSettings;
}

/** Invalid messages one socket may send per window before it is closed (1008) as abusive. */
const INVALID_MESSAGES_PER_WINDOW = 20;
const INVALID_WINDOW_MS = 60_000;
/** Messages waiting for the ones before them: more means a client that sends without reading the answers. */
const MAX_PENDING_MESSAGES = 64;
/** Segments per `transcript.mutable` frame (a long meeting's history goes out in several). */
const SEGMENTS_PER_FRAME = 100;
/** Reads wait while this much is still queued for the client (a slow reader; the rest waits in Postgres). */
const SEND_HIGH_WATER_BYTES = 1024 * 1024;

const DATABASE_UNAVAILABLE = 'Database unavailable; try again shortly';

function retryAfterOf(error: AppError): number | undefined {
  const seconds = Number(error.headers['Retry-After']);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/**
 * One client's WebSocket on `/ws` from its upgrade to its close: authenticates it (with the key the
 * upgrade carried, or the first message's), takes its place in its key's socket count, answers its
 * messages one at a time in order, and sends what changes in the meetings it subscribed to through
 * one LiveFeed (the same reader as the SSE stream), each data frame with its cursor.
 */
export class LiveSocketSession extends SocketSession {
  private feed: LiveFeed | undefined;
  private readonly subscriptions = new Map<number, MeetingRef>();
  private invalidMessages: number[] = [];

  constructor(
    ws: WebSocket,
    private readonly deps: LiveSocketDeps,
    private readonly client: { address: string; presented: { key: string; source: KeySource } | undefined },
  ) {
    super(
      ws,
      {
        label: 'live socket',
        log: deps.log.child({ socketId: randomUUID() }),
        db: deps.db,
        openFeeds: deps.openFeeds,
        pingIntervalMs: deps.settings.pingIntervalMs,
        authTimeoutMs: deps.settings.authTimeoutMs,
        maxPendingMessages: MAX_PENDING_MESSAGES,
        overflow: { error: 'too_many_invalid_messages', closeCode: CloseCodes.policyViolation },
        closeCodes: CloseCodes,
        shutdownReason: 'Server shutting down; reconnect with your cursors',
      },
      client.presented,
    );
  }

  protected errorFrame(error: string, details: string, retryAfter?: number): unknown {
    return errorFrame(
      error as ErrorCode,
      details,
      retryAfter === undefined ? {} : { retry_after: retryAfter },
    );
  }

  private sendError(code: ErrorCode, details: string, extra: Parameters<typeof errorFrame>[2] = {}): void {
    this.sendJson(errorFrame(code, details, extra));
  }

  /** A message the client should not have sent: an error frame, and the close once it keeps at it. */
  private invalid(code: ErrorCode, details: string, extra: Parameters<typeof errorFrame>[2] = {}): void {
    this.sendError(code, details, extra);
    const now = Date.now();
    this.invalidMessages = this.invalidMessages.filter((at) => now - at < INVALID_WINDOW_MS);
    this.invalidMessages.push(now);
    if (this.invalidMessages.length > INVALID_MESSAGES_PER_WINDOW) {
      this.fail(
        'too_many_invalid_messages',
        `More than ${INVALID_MESSAGES_PER_WINDOW} invalid messages in a minute`,
        CloseCodes.policyViolation,
      );
    }
  }

  protected async authenticate(key: string | undefined, source: KeySource | 'message'): Promise<void> {
    this.keyArrived();
    const { db, rateLimits } = this.deps;
    let auth: AuthenticatedKey;
    try {
      auth = await authenticateApiKey(db, rateLimits, this.client.address, key, this.log);
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        if (key === undefined) {
          this.fail(
            'missing_api_key',
            'Unauthorized: no API key (send X-API-Key or Authorization: Bearer with the upgrade, or {"action": "auth", "api_key": …} first)',
            CloseCodes.unauthorized,
          );
        } else {
          this.fail('invalid_api_key', 'Unauthorized', CloseCodes.unauthorized);
        }
        return;
      }
      if (error instanceof TooManyRequestsError) {
        this.fail('rate_limited', error.message, CloseCodes.tooManyRequests, retryAfterOf(error));
        return;
      }
      // Keys live in Postgres: while it is away no key can be told right or wrong (REST answers 503).
      if (isTransientStoreError(error)) {
        this.fail('unavailable', DATABASE_UNAVAILABLE, CloseCodes.tryAgainLater);
        return;
      }
      this.log.error({ err: error }, 'live socket authentication failed');
      this.fail('internal_error', 'Internal error', CloseCodes.internalError);
      return;
    }
    if (this.closed) return;
    let slot: LiveSlot;
    try {
      slot = await this.deps.slots.acquire(auth.keyId);
    } catch (error) {
      if (error instanceof TooManyRequestsError) {
        this.fail('too_many_sockets', error.message, CloseCodes.tooManyRequests, retryAfterOf(error));
        return;
      }
      throw error;
    }
    if (this.closed) {
      await slot.release();
      return;
    }
    this.auth = auth;
    this.keyHash = hashApiKey(key ?? '');
    this.slot = slot;
    this.log = this.log.child({ userId: auth.user.id, keyId: auth.keyId });
    // Subscribed to announcements before the first read; without Redis the feed still polls.
    await this.deps.changes
      .start()
      .catch((error: unknown) => this.log.warn({ err: error }, 'live socket without change announcements'));
    this.startFeed();
    this.log.info({ keyFrom: source }, 'live socket opened');
    if (source === 'message') this.sendJson({ type: 'authenticated' });
  }

  private startFeed(): void {
    const feed = new LiveFeed({
      db: this.deps.db,
      changes: this.deps.changes,
      options: this.deps.settings.feed,
      sink: {
        changes: (meetingId, items) => this.deliver(meetingId, items),
        ended: (meetingId, status) => {
          const meeting = this.subscriptions.get(meetingId);
          if (!meeting) return;
          this.subscriptions.delete(meetingId);
          this.sendJson(
            unsubscribedFrame(
              [meeting],
              status ? { reason: 'meeting_ended', status } : { reason: 'meeting_deleted' },
            ),
          );
        },
        ready: async () => {
          while (!this.closed && this.ws.bufferedAmount > SEND_HIGH_WATER_BYTES) await sleep(50);
        },
      },
    });
    this.feed = feed;
    feed.done.catch((error: unknown) => {
      if (this.closed) return;
      if (isTransientStoreError(error)) {
        this.fail(
          'unavailable',
          `${DATABASE_UNAVAILABLE}; reconnect with your cursors`,
          CloseCodes.tryAgainLater,
        );
        return;
      }
      this.log.error({ err: error }, 'live socket feed failed');
      this.fail('internal_error', 'Internal error; reconnect with your cursors', CloseCodes.internalError);
    });
  }

  /** One read's changes of a meeting, in order (frames.ts: liveItemFrames). */
  private deliver(meetingId: number, items: readonly LiveItem[]): void {
    const meeting = this.subscriptions.get(meetingId);
    if (!meeting) return;
    for (const frame of liveItemFrames(meeting, items, SEGMENTS_PER_FRAME)) this.sendJson(frame);
  }

  protected async handle(data: RawData, isBinary: boolean): Promise<void> {
    if (isBinary) {
      this.invalid('invalid_json', 'Send JSON text frames');
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      this.invalid('invalid_json', 'Message is not valid JSON');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.invalid('invalid_json', 'A message is a JSON object with an "action"');
      return;
    }
    const action = (message as { action?: unknown }).action;
    if (!this.auth) {
      await this.authenticateByMessage(message);
      return;
    }
    try {
      await this.deps.rateLimits.request(this.auth.keyId);
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      this.invalid('rate_limited', error.message, { retry_after: retryAfterOf(error) ?? 1 });
      return;
    }
    switch (action) {
      case 'ping':
        this.sendJson({ type: 'pong' });
        return;
      case 'subscribe':
        await this.subscribe(message);
        return;
      case 'unsubscribe':
        this.unsubscribe(message);
        return;
      case 'auth':
        this.invalid('already_authenticated', 'This socket is authenticated already');
        return;
      default:
        this.invalid(
          'unknown_action',
          `"action" must be one of ${ACTIONS.join(', ')}${typeof action === 'string' ? ` (got "${action.slice(0, 40)}")` : ''}`,
        );
    }
  }

  /** Before authentication the one message taken is `auth`; anything else ends the socket as unauthorized. */
  private async authenticateByMessage(message: object): Promise<void> {
    if ((message as { action?: unknown }).action !== 'auth') {
      await this.authenticate(undefined, 'message');
      return;
    }
    try {
      const { api_key: key } = parseInput(authMessage, message, 'Message');
      await this.authenticate(key, 'message');
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      this.fail('invalid_auth_payload', `${error.message}`, CloseCodes.unauthorized);
    }
  }

  private async subscribe(message: object): Promise<void> {
    const auth = this.auth!;
    const limit = this.deps.settings.subscriptionsPerSocket;
    let selectors: MeetingSelector[];
    try {
      selectors = parseInput(meetingsMessage('subscribe', limit), message, 'Message').meetings;
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      this.invalid('invalid_subscribe_payload', error.message);
      return;
    }
    const { found, notFound } = await findSelectedMeetings(this.deps.db, auth, selectors);
    if (this.closed) return;
    const added = [...found.values()].filter(({ meeting }) => !this.subscriptions.has(meeting.id));
    if (this.subscriptions.size + added.length > limit) {
      this.sendError(
        'too_many_subscriptions',
        `A socket follows at most ${limit} meetings (${this.subscriptions.size} now); unsubscribe from some first`,
      );
      return;
    }
    if (found.size > 0) this.sendJson(subscribedFrame([...found.values()]));
    for (const { meeting, cursor } of added) {
      this.subscriptions.set(meeting.id, meeting);
      this.feed?.follow(meeting.id, cursor);
    }
    if (notFound.length > 0) this.sendError('meeting_not_found', 'Meeting not found', { meetings: notFound });
  }

  private unsubscribe(message: object): void {
    let selectors: MeetingSelector[];
    try {
      selectors = parseInput(
        meetingsMessage('unsubscribe', this.deps.settings.subscriptionsPerSocket),
        message,
        'Message',
      ).meetings;
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      this.invalid('invalid_unsubscribe_payload', error.message);
      return;
    }
    const { removed, notSubscribed } = removeSelected(this.subscriptions, selectors);
    for (const meeting of removed.values()) this.feed?.unfollow(meeting.id);
    if (removed.size > 0) this.sendJson(unsubscribedFrame([...removed.values()]));
    if (notSubscribed.length > 0) {
      this.sendError('not_subscribed', 'Not subscribed to this meeting', { meetings: notSubscribed });
    }
  }

  protected unexpected(error: unknown): void {
    if (this.closed) return;
    if (isTransientStoreError(error)) {
      // The database is away for a moment: this message failed, the socket stays.
      this.sendError('unavailable', DATABASE_UNAVAILABLE);
      return;
    }
    this.log.error({ err: error }, 'live socket message failed');
    this.sendError('internal_error', 'Internal error');
  }

  protected released(): Record<string, unknown> {
    this.feed?.close();
    return { subscriptions: this.subscriptions.size };
  }
}
