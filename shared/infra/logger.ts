import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(service: string, level: string): Logger {
  return pino({
    name: service,
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers["x-admin-api-key"]', 'req.headers.authorization'],
      censor: '[redacted]',
    },
  });
}
