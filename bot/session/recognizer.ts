import type { TranscriptionConfig } from '../../shared/contract/bot-config.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { Outcome } from '../end-signal.js';
import type { EngineCallbacks, EngineSettings, TranscriptionEngine } from '../engines/engine.js';
import { withLimit } from './time-limit.js';

export type EngineFactory = (
  config: TranscriptionConfig,
  settings: EngineSettings,
  callbacks: EngineCallbacks,
  log: Logger,
) => TranscriptionEngine;

const FLUSH_LIMIT_MS = 20_000;

/** The session's transcription engine (bot/engines/): started before the browser, finished at the end. */
export class Recognizer {
  private current: TranscriptionEngine | null = null;

  constructor(
    private readonly createEngine: EngineFactory,
    private readonly config: TranscriptionConfig,
    private readonly log: Logger,
  ) {}

  /** The engine, from its creation (a reconfigure may reach it while it starts); null if it failed. */
  get engine(): TranscriptionEngine | null {
    return this.current;
  }

  /** Creates and starts the engine; the failure (engine_error) when it can't: the bot then doesn't join. */
  async start(settings: EngineSettings, callbacks: EngineCallbacks): Promise<Outcome | null> {
    try {
      this.current = this.createEngine(this.config, settings, callbacks, this.log);
      await this.current.start();
      return null;
    } catch (error) {
      this.current = null;
      this.log.error({ err: error }, 'transcription engine could not start');
      return { status: 'failed', reason: 'engine_error', detail: (error as Error).message };
    }
  }

  /** The audio it has is transcribed (given FLUSH_LIMIT_MS) and the engine closed. */
  async finish(): Promise<void> {
    const engine = this.current;
    if (!engine) return;
    const { log } = this;
    await withLimit(engine.flush(), FLUSH_LIMIT_MS, 'flushing the engine', log).catch((error: unknown) =>
      log.warn({ err: error }, 'flushing the engine failed'),
    );
    await engine.close().catch((error: unknown) => log.warn({ err: error }, 'closing the engine failed'));
  }
}
