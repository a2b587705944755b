import { describe, expect, it } from 'vitest';
import { EmbeddedEngine } from '../../../bot/engines/embedded/embedded-engine.js';
import { RECOGNIZER_PROFILES, recognizerArgs } from '../../../bot/engines/embedded/recognizer-profiles.js';
import { silentLogger } from '../../../bot/engines/engine-logger.js';
import {
  DEFAULT_EMBEDDED_PROFILE,
  EMBEDDED_PROFILES,
  parseBotConfig,
  transcriptionConfig,
} from '../../../shared/contract/bot-config.js';

const callbacks = { onSegment: () => {}, onFatalError: () => {} };
const settings = { language: 'en', task: 'transcribe' as const };

function engineArgs(config: unknown): readonly string[] {
  const parsed = transcriptionConfig.parse(config);
  if (parsed.engine !== 'embedded') throw new Error('not the embedded engine');
  return new EmbeddedEngine(parsed, settings, callbacks, silentLogger(), { dictionary: '/dict/words.dict' })
    .args;
}

const botConfig = (transcription: unknown) =>
  JSON.stringify({
    meetingId: 1,
    sessionId: 's',
    platform: 'google_meet',
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
    botName: 'Notes',
    language: 'en',
    redisUrl: 'redis://127.0.0.1:6379',
    streamPrefix: 'meetbot',
    transcription,
  });

describe('recognizer profiles', () => {
  it('has flags for every profile the contract names, each a different search', () => {
    expect(Object.keys(RECOGNIZER_PROFILES).sort()).toEqual([...EMBEDDED_PROFILES].sort());
    const distinct = new Set(EMBEDDED_PROFILES.map((profile) => RECOGNIZER_PROFILES[profile].join(' ')));
    expect(distinct.size).toBe(EMBEDDED_PROFILES.length);
    for (const profile of EMBEDDED_PROFILES) {
      const flags = RECOGNIZER_PROFILES[profile];
      expect(flags.length % 2, `${profile}: flag/value pairs`).toBe(0);
      for (let i = 0; i < flags.length; i += 2) expect(flags[i]).toMatch(/^-[a-z_]+$/);
    }
  });

  it('maps a profile to its flags, and the operator’s own arguments replace them', () => {
    expect(recognizerArgs('fast', [])).toEqual(RECOGNIZER_PROFILES.fast);
    expect(recognizerArgs('accurate', [])).toEqual(RECOGNIZER_PROFILES.accurate);
    expect(recognizerArgs('fast', ['-beam', '1e-40'])).toEqual(['-beam', '1e-40']);
  });

  it('runs the engine with the default profile when the config names none', () => {
    expect(transcriptionConfig.parse({ engine: 'embedded' })).toEqual({
      engine: 'embedded',
      profile: DEFAULT_EMBEDDED_PROFILE,
      extraArgs: [],
    });
    expect(engineArgs({ engine: 'embedded' })).toEqual([
      '-time',
      'yes',
      '-dict',
      '/dict/words.dict',
      ...RECOGNIZER_PROFILES[DEFAULT_EMBEDDED_PROFILE],
    ]);
  });

  it('runs the engine with the profile the config names, unless extraArgs are given', () => {
    expect(engineArgs({ engine: 'embedded', profile: 'accurate' })).toEqual([
      '-time',
      'yes',
      '-dict',
      '/dict/words.dict',
    ]);
    expect(engineArgs({ engine: 'embedded', profile: 'fast', extraArgs: ['-topn', '1'] })).toEqual([
      '-time',
      'yes',
      '-dict',
      '/dict/words.dict',
      '-topn',
      '1',
    ]);
    // The operator's own dictionary wins over the image's.
    expect(engineArgs({ engine: 'embedded', extraArgs: ['-dict', '/mine.dict'] })).toEqual([
      '-time',
      'yes',
      '-dict',
      '/mine.dict',
    ]);
  });

  it('refuses an unknown profile in the bot config, naming the field and the choices', () => {
    expect(() => parseBotConfig(botConfig({ engine: 'embedded', profile: 'turbo' }))).toThrow(
      /transcription\.profile: must be one of accurate, balanced, fast/,
    );
    expect(parseBotConfig(botConfig({ engine: 'embedded', profile: 'fast' })).transcription).toMatchObject({
      profile: 'fast',
    });
  });
});
