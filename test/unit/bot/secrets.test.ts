import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withSecretsFromFile } from '../../../bot/secrets.js';
import { botConfigSchema, parseBotConfig, splitBotSecrets } from '../../../shared/contract/bot-config.js';

const full = {
  meetingId: 3,
  sessionId: 's-1',
  platform: 'google_meet',
  meetingUrl: 'https://meet.google.com/abc-defg-hij',
  botName: 'Notes',
  language: null,
  redisUrl: 'redis://meetbot%3Abot%3As-1:p%40ss%3Aw0rd@127.0.0.1:6379',
  streamPrefix: 'meetbot',
  transcription: { engine: 'openai', baseUrl: 'https://stt.example.com/v1', apiKey: 'sk-stt' },
  speech: { engine: 'openai', baseUrl: 'https://tts.example.com/v1', apiKey: 'sk-tts' },
} as const;

describe('the bot reads its secrets from the file the worker put in', () => {
  it('gets back exactly the config the worker meant, with nothing secret in the environment', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'bot-secrets-'));
    const path = join(directory, 'bot-secrets.json');
    const { config, secrets } = splitBotSecrets(full, path);
    const environment = JSON.stringify(config);
    for (const secret of ['p%40ss', 'sk-stt', 'sk-tts']) expect(environment).not.toContain(secret);
    await writeFile(path, JSON.stringify(secrets), { mode: 0o600 });

    const read = await withSecretsFromFile(parseBotConfig(environment));
    expect(read).toEqual(botConfigSchema.parse(full));
  });

  it('fails with a message naming the file, never a secret, when the file is missing or broken', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'bot-secrets-'));
    const path = join(directory, 'bot-secrets.json');
    const environment = JSON.stringify(splitBotSecrets(full, path).config);
    await expect(withSecretsFromFile(parseBotConfig(environment))).rejects.toThrow(
      `the bot's secrets file ${path} is missing or unreadable: ENOENT`,
    );
    await writeFile(path, '{"redisPassword": 5, "note": "sk-leak"}');
    const broken = withSecretsFromFile(parseBotConfig(environment));
    await expect(broken).rejects.toThrow(`the bot's secrets file ${path} is not the secrets of a bot config`);
    await expect(broken).rejects.not.toThrow(/sk-leak/);
  });
});
