import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RawData, WebSocket } from 'ws';
import { hashApiKey } from '../../shared/accounts/api-keys.js';
import type { AuthenticatedKey } from '../../shared/accounts/keys-store.js';
import {
  type AudioChunkHeader,
  botAudioStream,
  botAudioWantedKey,
} from '../../shared/contract/audio-stream.js';
import { NotFoundError, TooManyRequestsError, UnauthorizedError } from '../../shared/infra/errors.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { isTransientStoreError } from '../../shared/infra/store-errors.js';
import { getMeeting } from '../../shared/meetings/service.js';
import type { MeetingRecord } from '../../shared/meetings/store.js';
import type { OpenFeeds } from '../live/open-feeds.js';
import type { LiveSlot, LiveSlots } from '../live/slots.js';
import { authenticateApiKey } from '../middleware/auth.js';
import type { RateLimits } from '../middleware/rate-limits.js';
import { AUDIO_CLOSE, slowConsumerVerdict } from './audio-consumer.js';
import { audioFrameHeader, encodeAudioFrame, readyFrame } from './audio-frames.js';
import { AudioStreamReader } from './audio-reader.js';
import { AudioWantedRefresher } from './audio-wanted.js';
import type { KeySource } from './handshake.js';
import { CLOSE_WAIT_MS, SocketSession } from './socket-session.js';

export interface AudioSocketSettings {
  /** WS_PING_INTERVAL_SECONDS, in ms */
  pingIntervalMs: number;
  /** How long a socket that came without a key has to send its `auth` message. */
  authTimeoutMs: number;
  /** How often the meeting's status (and its bot's session) is looked at again. */
  statusCheckMs: number;
  /** The most a client may have unsent before it is dropped (audio-consumer.ts). */
  sendLimitBytes?: number;
  /** How often the bot's wanted key is set again (AUDIO_WANTED_REFRESH_MS; tests shorten it). */
  wantedRefreshMs?: number;
}

export interface AudioSocketDeps {
  db: Knex;
  rateLimits: RateLimits;
  /** AUDIO_SOCKETS_PER_USER, across replicas */
  slots: LiveSlots;
  openFeeds: OpenFeeds;
  log: Logger;
  /** QUEUE_PREFIX: where the bots' audio streams are. */
  streamPrefix: string;
  /** A Redis connection of the socket's own (its reader blocks on it); closed with the socket. */
  openRedis: () => Redis;
  /** The API's shared connection: SETs the wanted keys that make the bots publish (audio-wanted.ts). */
  redis: Pick<Redis, 'set'>;
  settings: AudioSocketSettings;
}

const DATABASE_UNAVAILABLE = 'Database unavailable; try again shortly';
/** Client messages waiting for their turn: more is a client sending without reading. */
const MAX_PENDING_MESSAGES = 16;

/**
 * One client's audio WebSocket on `/meetings/{id}/audio`: authenticated like `/ws` (the key with
 * the upgrade, or a first `auth` message), for a meeting of the key's user that is active, within
 * the user's audio socket count; then every chunk of the meeting's bot's audio stream as a binary
 * frame, until the meeting ends (1000), the client falls behind (4000) or leaves. The bot publishes
 * only while someone listens: the socket keeps its bot's wanted key alive while it is open.
 */
export class AudioSocketSession extends SocketSession {
  private reader: AudioStreamReader | undefined;
  private wanted: AudioWantedRefresher | undefined;
  private sent = 0;
  private statusTimer: NodeJS.Timeout | undefined;

  constructor(
    ws: WebSocket,
    private readonly deps: AudioSocketDeps,
    private readonly client: { address: string; presented: { key: string; source: KeySource } | undefined },
    private readonly meetingId: number,
  ) {
    super(
      ws,
      {
        label: 'audio socket',
        log: deps.log.child({ audioSocketId: randomUUID(), meetingId }),
        db: deps.db,
        openFeeds: deps.openFeeds,
        pingIntervalMs: deps.settings.pingIntervalMs,
        authTimeoutMs: deps.settings.authTimeoutMs,
        maxPendingMessages: MAX_PENDING_MESSAGES,
        overflow: { error: 'too_many_messages', closeCode: AUDIO_CLOSE.policyViolation },
        closeCodes: AUDIO_CLOSE,
        shutdownReason: 'Server shutting down; reconnect',
      },
      client.presented,
    );
  }

  protected errorFrame(error: string, details: string): unknown {
    return { type: 'error', error, details };
  }

  /**
   * After authentication a client sends nothing but `{"action":"ping"}` (answered `pong`): the
   * socket only sends. Before it, the one message taken is `auth`.
   */
  protected async handle(data: RawData, isBinary: boolean): Promise<void> {
    let message: { action?: unknown; api_key?: unknown } | undefined;
    if (!isBinary) {
      try {
        const parsed: unknown = JSON.parse(data.toString());
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) message = parsed;
      } catch {
        message = undefined;
      }
    }
    if (!this.auth) {
      if (message?.action === 'auth' && typeof message.api_key === 'string' && message.api_key !== '') {
        await this.authenticate(message.api_key, 'message');
      } else {
        await this.authenticate(undefined, 'message');
      }
      return;
    }
    if (message?.action === 'ping') {
      this.sendJson({ type: 'pong' });
      return;
    }
    this.fail(
      'unexpected_message',
      'This socket only sends audio; a client sends nothing but {"action":"ping"}',
      AUDIO_CLOSE.policyViolation,
    );
  }

  /** Authenticates, checks the meeting and the user's socket count, then starts the audio. */
  protected async authenticate(key: string | undefined, source: KeySource | 'message'): Promise<void> {
    this.keyArrived();
    if (this.auth) return;
    const { db, rateLimits } = this.deps;
    let auth: AuthenticatedKey;
    try {
      auth = await authenticateApiKey(db, rateLimits, this.client.address, key, this.log);
    } catch (error) {
      if (error instanceof UnauthorizedError) {
        this.fail(
          key === undefined ? 'missing_api_key' : 'invalid_api_key',
          key === undefined
            ? 'Unauthorized: no API key (send X-API-Key or Authorization: Bearer with the upgrade, or {"action": "auth", "api_key": …} first)'
            : 'Unauthorized',
          AUDIO_CLOSE.unauthorized,
        );
        return;
      }
      if (error instanceof TooManyRequestsError) {
        this.fail('rate_limited', error.message, AUDIO_CLOSE.tooManyRequests);
        return;
      }
      throw error;
    }
    if (this.closed) return;
    let meeting: MeetingRecord;
    try {
      meeting = await getMeeting(db, auth, this.meetingId);
    } catch (error) {
      // Another user's meeting is not found, exactly as over REST.
      if (!(error instanceof NotFoundError)) throw error;
      this.fail('meeting_not_found', 'Meeting not found', AUDIO_CLOSE.notFound);
      return;
    }
    if (meeting.status !== 'active') {
      this.fail(
        'meeting_not_active',
        `Meeting is not active (status: ${meeting.status}); audio flows only while its bot is in the call`,
        AUDIO_CLOSE.notActive,
      );
      return;
    }
    let slot: LiveSlot;
    try {
      slot = await this.deps.slots.acquire(auth.user.id);
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      this.fail('too_many_sockets', error.message, AUDIO_CLOSE.tooManyRequests);
      return;
    }
    if (this.closed) {
      await slot.release();
      return;
    }
    this.auth = auth;
    this.keyHash = hashApiKey(key ?? '');
    this.slot = slot;
    this.log = this.log.child({ userId: auth.user.id, keyId: auth.keyId });
    this.reader = new AudioStreamReader(this.deps.openRedis(), (chunk) => this.deliver(chunk), this.log);
    this.wanted = new AudioWantedRefresher(this.deps.redis, this.log, this.deps.settings.wantedRefreshMs);
    // Ready once the reader knows where the stream stands and the bot was told someone listens:
    // every chunk the bot publishes after this frame comes (it starts within AUDIO_WANTED_CHECK_MS).
    try {
      await this.follow(meeting);
    } catch (error) {
      this.log.warn({ err: error }, 'audio socket cannot read its stream');
      this.fail('unavailable', 'Audio unavailable; try again shortly', AUDIO_CLOSE.tryAgainLater);
      return;
    }
    if (this.closed) return;
    this.sendJson(readyFrame(this.meetingId));
    this.statusTimer = setInterval(
      () => this.enqueue(() => this.checkMeeting()),
      this.deps.settings.statusCheckMs,
    );
    this.log.info({ keyFrom: source }, 'audio socket opened');
  }

  /** Reads the bot's stream, then tells the bot someone listens (reading first: nothing is missed). */
  private async follow(meeting: MeetingRecord): Promise<void> {
    const { streamPrefix } = this.deps;
    const sessionId = meeting.launchSessionId;
    await this.reader?.follow(sessionId === null ? null : botAudioStream(streamPrefix, sessionId));
    await this.wanted?.want(sessionId === null ? null : botAudioWantedKey(streamPrefix, sessionId));
  }

  /** The meeting ended (1000) or was deleted (4404); a relaunched bot is followed on its new stream. */
  private async checkMeeting(): Promise<void> {
    if (!this.auth) return;
    let meeting: MeetingRecord;
    try {
      meeting = await getMeeting(this.deps.db, this.auth, this.meetingId);
    } catch (error) {
      if (error instanceof NotFoundError) {
        this.fail('meeting_not_found', 'Meeting deleted', AUDIO_CLOSE.notFound);
        return;
      }
      // Postgres away for a moment: the audio goes on, the next check asks again.
      if (isTransientStoreError(error)) return;
      throw error;
    }
    if (meeting.status !== 'active') {
      this.close(AUDIO_CLOSE.meetingEnded, `Meeting ended (status: ${meeting.status})`);
      return;
    }
    // Not awaited: a relaunched bot's stream is followed from the read after this one.
    void this.follow(meeting).catch((error: unknown) =>
      this.log.warn({ err: error }, "could not follow the relaunched bot's audio"),
    );
  }

  private deliver(chunk: { header: AudioChunkHeader; pcm: Buffer }): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    const frame = encodeAudioFrame(audioFrameHeader(chunk.header, chunk.pcm.length, Date.now()), chunk.pcm);
    const verdict = slowConsumerVerdict(
      this.ws.bufferedAmount,
      frame.length,
      this.deps.settings.sendLimitBytes,
    );
    if (!verdict.send) {
      this.log.info(
        { bufferedBytes: this.ws.bufferedAmount, sent: this.sent },
        'dropping a slow audio consumer',
      );
      this.close(AUDIO_CLOSE.slowConsumer, verdict.reason);
      // The client does not read: its close frame would wait behind the unsent audio.
      setTimeout(() => this.ws.terminate(), CLOSE_WAIT_MS).unref();
      return;
    }
    this.sent += 1;
    this.ws.send(frame, { binary: true });
  }

  protected unexpected(error: unknown): void {
    if (this.closed) return;
    if (isTransientStoreError(error)) {
      this.fail('unavailable', DATABASE_UNAVAILABLE, AUDIO_CLOSE.tryAgainLater);
      return;
    }
    this.log.error({ err: error }, 'audio socket failed');
    this.fail('internal_error', 'Internal error', AUDIO_CLOSE.internalError);
  }

  protected released(): Record<string, unknown> {
    clearInterval(this.statusTimer);
    this.reader?.close();
    this.wanted?.stop();
    return { sent: this.sent };
  }
}
