import type { Logger } from '../../shared/infra/logger.js';

/** `work`, or undefined once it took longer than `ms` (said in the log): the bot goes on without it. */
export async function withLimit<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  log: Logger,
): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      log.warn({ ms }, `${what} took too long; going on`);
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
