import type { TranscriptionConfig } from '../../shared/contract/bot-config.js';

export type EmbeddedEngineConfig = Extract<TranscriptionConfig, { engine: 'embedded' }>;
export type OpenAiEngineConfig = Extract<TranscriptionConfig, { engine: 'openai' }>;
export type WhisperLiveEngineConfig = Extract<TranscriptionConfig, { engine: 'whisperlive' }>;
