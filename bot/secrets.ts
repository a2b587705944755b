import { readFile } from 'node:fs/promises';
import {
  type BotConfig,
  type BotSecrets,
  parseBotSecrets,
  withBotSecrets,
} from '../shared/contract/bot-config.js';

/**
 * The config with its secrets, read from the file the worker put into the container (`secretsPath`;
 * a config from an older worker carries them itself). The file stays (0600, the bot user's): code
 * running as the bot user could take the secrets from the bot anyway; what matters is that they are
 * in no environment, which `docker inspect` shows and every child process inherits.
 */
export async function withSecretsFromFile(config: BotConfig): Promise<BotConfig> {
  if (!config.secretsPath) return config;
  return withBotSecrets(config, await readBotSecrets(config.secretsPath));
}

/** The secrets file; throws a message naming what is wrong, never a secret. */
export async function readBotSecrets(path: string): Promise<BotSecrets> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(
      `the bot's secrets file ${path} is missing or unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  return parseBotSecrets(raw, path);
}
