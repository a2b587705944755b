import { describe, expect, it } from 'vitest';
import { EmbeddedEngine } from '../../../bot/engines/embedded/embedded-engine.js';
import { createEngine } from '../../../bot/engines/index.js';
import { OpenAiEngine } from '../../../bot/engines/openai/openai-engine.js';
import { WhisperLiveEngine } from '../../../bot/engines/whisperlive/whisperlive-engine.js';
import { transcriptionConfig } from '../../../shared/contract/bot-config.js';

const callbacks = { onSegment: () => {}, onFatalError: () => {} };
const settings = { language: null, task: 'transcribe' as const };

describe('createEngine', () => {
  it('builds the engine the config names', () => {
    expect(
      createEngine(transcriptionConfig.parse({ engine: 'embedded' }), settings, callbacks),
    ).toBeInstanceOf(EmbeddedEngine);
    expect(
      createEngine(
        transcriptionConfig.parse({ engine: 'openai', baseUrl: 'http://127.0.0.1:1/v1' }),
        settings,
        callbacks,
      ),
    ).toBeInstanceOf(OpenAiEngine);
    expect(
      createEngine(
        transcriptionConfig.parse({ engine: 'whisperlive', url: 'ws://127.0.0.1:1' }),
        settings,
        callbacks,
      ),
    ).toBeInstanceOf(WhisperLiveEngine);
  });

  it('lets the openai engine refuse something that is not a language at start', async () => {
    const engine = createEngine(
      transcriptionConfig.parse({ engine: 'openai', baseUrl: 'http://127.0.0.1:1/v1' }),
      { language: 'not a language', task: 'transcribe' },
      callbacks,
    );
    await expect(engine.start()).rejects.toThrow(/not a language code/);
  });
});
