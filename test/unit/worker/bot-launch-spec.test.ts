import { describe, expect, it } from 'vitest';
import { transcriptionConfig } from '../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../shared/infra/config.js';
import { transcriptionConfigFrom } from '../../../worker/runtime/bot-launch-spec.js';

describe('transcriptionConfigFrom', () => {
  it('passes the worker’s EMBEDDED_PROFILE on to the bot', () => {
    const config = transcriptionConfigFrom(parseConfig({ EMBEDDED_PROFILE: 'fast' }));
    expect(config).toEqual({ engine: 'embedded', profile: 'fast', extraArgs: [] });
    expect(transcriptionConfig.parse(config)).toEqual(config);
  });

  it('sends the default profile when the worker sets none', () => {
    expect(transcriptionConfigFrom(parseConfig({}))).toMatchObject({
      engine: 'embedded',
      profile: 'balanced',
    });
  });
});
