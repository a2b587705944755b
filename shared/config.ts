import { existsSync } from 'node:fs';
import { z } from 'zod';

const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const originList = commaList.pipe(
  z.array(
    z.url({
      protocol: /^https?$/,
      error: 'each entry must be an http(s) origin such as http://127.0.0.1:4100',
    }),
  ),
);

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .default('false')
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

/** Every setting the service reads from the environment, with the defaults that work on a dev machine. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/meetbot'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only')
    .default('meetbot'),
  API_HOST: z.string().min(1).default('127.0.0.1'),
  API_PORT: port.default(8056),
  PUBLIC_BASE_URL: z.url().optional(),
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  DEFAULT_MAX_CONCURRENT_BOTS: z.coerce.number().int().min(0).max(10_000).default(3),
  DEFAULT_BOT_NAME: z.string().min(1).max(100).default('Meetbot'),
  EXTRA_MEETING_ORIGINS: originList,
  REQUEST_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  TRUST_PROXY: booleanFlag,
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Validates the whole environment at once so an operator sees every problem, not just the first. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return result.data;
}

/**
 * Loads `.env` (when present) into process.env without overriding variables already set,
 * then validates. On failure prints every problem and exits 1: a process must not start half-configured.
 */
export function loadConfigOrExit(envFile = '.env'): Config {
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
