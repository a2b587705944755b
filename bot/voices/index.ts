import type { SpeechConfig } from '../../shared/contract/bot-config.js';
import { FliteSynthesizer } from './flite.js';
import { OpenAiSpeechSynthesizer } from './openai-speech.js';
import type { SpeechSynthesizer } from './voice.js';

export function createSpeechSynthesizer(config: SpeechConfig): SpeechSynthesizer {
  return config.engine === 'flite'
    ? new FliteSynthesizer(config.defaultVoice)
    : new OpenAiSpeechSynthesizer(config);
}
