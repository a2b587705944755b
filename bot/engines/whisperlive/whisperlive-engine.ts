import { randomUUID } from 'node:crypto';
import { float32ToLittleEndianBytes, int16ToFloat32 } from '../../audio-utils/pcm.js';
import type { EngineCallbacks, EngineSegment, EngineSettings, TranscriptionEngine } from '../engine.js';
import { SAMPLE_RATE } from '../engine.js';
import type { WhisperLiveEngineConfig } from '../engine-configs.js';
import type { EngineLogger } from '../engine-logger.js';
import { toLanguageCode } from '../../../shared/contract/languages.js';
import { SegmentIds } from '../segment-ids.js';
import { SegmentTracker } from './segment-tracker.js';
import type { ServerMessage } from './whisperlive-protocol.js';
import { WhisperLiveSession } from './whisperlive-session.js';

export interface WhisperLiveEngineOptions {
  readyTimeoutMs?: number;
  finishTimeoutMs?: number;
}

/** A server session and the settings it was opened with (the protocol can't change them later). */
interface LiveSession {
  connection: Promise<WhisperLiveSession>;
  tracker: SegmentTracker;
  settings: EngineSettings;
  detectedLanguage: string | null;
}

/**
 * A WhisperLive-compatible server over WebSocket. Language and task are fixed per connection, so
 * a reconfigure ends the current connection (its last segments still arrive) and the next audio
 * opens a new one with the new settings.
 */
export class WhisperLiveEngine implements TranscriptionEngine {
  private readonly ids = new SegmentIds('wl');
  private current: LiveSession | null = null;
  private readonly ending = new Set<Promise<void>>();
  private readonly everything = new Set<LiveSession>();
  private samplesWritten = 0;
  private closed = false;
  private fatal = false;

  constructor(
    private readonly config: WhisperLiveEngineConfig,
    private settings: EngineSettings,
    private readonly callbacks: EngineCallbacks,
    private readonly log: EngineLogger,
    private readonly options: WhisperLiveEngineOptions = {},
  ) {}

  async start(): Promise<void> {
    await this.open().connection;
  }

  write(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    const session = this.current ?? this.open();
    this.samplesWritten += samples.length;
    const bytes = float32ToLittleEndianBytes(int16ToFloat32(samples));
    session.connection.then(
      (connection) => connection.send(bytes),
      () => {},
    );
  }

  reconfigure(settings: Partial<EngineSettings>): void {
    const next = { ...this.settings, ...settings };
    const changed = next.language !== this.settings.language || next.task !== this.settings.task;
    this.settings = next;
    if (changed && this.current) {
      this.retire(this.current);
      this.current = null;
    }
  }

  async flush(): Promise<void> {
    if (this.current) this.retire(this.current);
    this.current = null;
    await Promise.all([...this.ending]);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.current = null;
    await Promise.all(
      [...this.everything].map(async (session) => {
        const connection = await session.connection.catch(() => null);
        await connection?.close();
      }),
    );
    this.everything.clear();
  }

  private open(): LiveSession {
    const isFirst = this.everything.size === 0;
    const settings = { ...this.settings };
    const session: LiveSession = {
      settings,
      detectedLanguage: null,
      tracker: new SegmentTracker(this.ids, this.samplesWritten / SAMPLE_RATE),
      connection: WhisperLiveSession.connect({
        url: this.config.url,
        config: {
          uid: randomUUID(),
          language: toLanguageCode(settings.language),
          task: settings.task,
          model: this.config.model,
          use_vad: this.config.useVad,
        },
        readyTimeoutMs: this.options.readyTimeoutMs ?? 15_000,
        finishTimeoutMs: this.options.finishTimeoutMs ?? 10_000,
        log: this.log,
        onMessage: (message) => this.receive(session, message),
        onLost: (error) => this.lost(session, error),
      }),
    };
    this.everything.add(session);
    session.connection.catch((error: Error) => {
      this.everything.delete(session);
      if (this.current === session) this.current = null;
      // start() reports the first connection's failure; a later one has nobody else to tell.
      if (!isFirst && !this.closed) this.fail(error);
    });
    this.current = session;
    return session;
  }

  private receive(session: LiveSession, message: ServerMessage): void {
    if (message.language) session.detectedLanguage = toLanguageCode(message.language);
    if (message.segments) this.emit(session.tracker.update(message.segments, languageOf(session)));
  }

  /** Ends a session in the background; its remaining segments are emitted, open ones as final. */
  private retire(session: LiveSession): void {
    const done = session.connection
      .then((connection) => connection.finish())
      .catch(() => {})
      .then(() => {
        this.everything.delete(session);
        this.emit(session.tracker.finishAll());
      });
    this.ending.add(done);
    void done.finally(() => this.ending.delete(done));
  }

  /** The server hung up: what it had shown stands, and the next audio opens a new connection. */
  private lost(session: LiveSession, error: Error): void {
    this.log.warn({ err: error }, 'whisperlive connection lost; reconnecting with the next audio');
    this.everything.delete(session);
    if (this.current === session) this.current = null;
    this.emit(session.tracker.finishAll());
  }

  private emit(segments: EngineSegment[]): void {
    if (this.closed) return;
    for (const segment of segments) this.callbacks.onSegment(segment);
  }

  private fail(error: Error): void {
    if (this.fatal) return;
    this.fatal = true;
    this.callbacks.onFatalError(error);
  }
}

function languageOf(session: LiveSession): string | null {
  if (session.settings.task === 'translate') return 'en';
  return toLanguageCode(session.settings.language) ?? session.detectedLanguage;
}
