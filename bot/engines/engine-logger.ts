import { pino } from 'pino';
import type { Logger } from '../../shared/infra/logger.js';

/** What the engines log through; the bot passes its meeting-scoped pino logger. */
export type EngineLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export function silentLogger(): EngineLogger {
  return pino({ level: 'silent' });
}
