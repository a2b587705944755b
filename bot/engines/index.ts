import type { TranscriptionConfig } from '../../shared/contract/bot-config.js';
import { EmbeddedEngine } from './embedded/embedded-engine.js';
import type { EngineCallbacks, EngineSettings, TranscriptionEngine } from './engine.js';
import { type EngineLogger, silentLogger } from './engine-logger.js';
import { OpenAiEngine } from './openai/openai-engine.js';
import { WhisperLiveEngine } from './whisperlive/whisperlive-engine.js';

export type { EngineCallbacks, EngineSegment, EngineSettings, TranscriptionEngine } from './engine.js';
export { SAMPLE_RATE } from './engine.js';

/** The engine the bot config asks for; call start() on it before writing audio. */
export function createEngine(
  config: TranscriptionConfig,
  settings: EngineSettings,
  callbacks: EngineCallbacks,
  log: EngineLogger = silentLogger(),
): TranscriptionEngine {
  switch (config.engine) {
    case 'embedded':
      return new EmbeddedEngine(config, settings, callbacks, log);
    case 'openai':
      return new OpenAiEngine(config, settings, callbacks, log);
    case 'whisperlive':
      return new WhisperLiveEngine(config, settings, callbacks, log);
  }
}
