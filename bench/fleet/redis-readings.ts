/**
 * What the fleet bench reads from its Redis besides INFO: the bots' ACL users and connections (a
 * bot's user is named `<QUEUE_PREFIX>:bot:…` and deleted once its exit has been handled,
 * worker/fleet/exit-handler.ts) and the bots' dead letters.
 */
import type { Redis } from 'ioredis';
import { botDeadLetterStream } from '../../shared/contract/streams.js';

export const botUserPrefix = (queuePrefix: string) => `${queuePrefix}:bot:`;

/** How many bots have a Redis user now. */
export async function botAclUsers(control: Redis, queuePrefix: string): Promise<number> {
  const prefix = botUserPrefix(queuePrefix);
  return ((await control.call('ACL', 'USERS')) as string[]).filter((user) => user.startsWith(prefix)).length;
}

/** Redis' connections now, the bots' and the service's. */
export async function clientsByUser(
  control: Redis,
  queuePrefix: string,
): Promise<{ bots: number; service: number }> {
  const prefix = botUserPrefix(queuePrefix);
  const clientList = String(await control.call('CLIENT', 'LIST'));
  const clients = { bots: 0, service: 0 };
  for (const line of clientList.split('\n')) {
    const user = /\buser=(\S+)/.exec(line)?.[1];
    if (!user) continue;
    if (user.startsWith(prefix)) clients.bots += 1;
    else clients.service += 1;
  }
  return clients;
}

/** The dead-letter stream's length and, when it has any, its first three entries' fields. */
export async function deadLetters(
  control: Redis,
  queuePrefix: string,
): Promise<{ count: number; sample: Array<[string, string[]]> }> {
  const count = await control.xlen(botDeadLetterStream(queuePrefix));
  const sample =
    count > 0 ? await control.xrange(botDeadLetterStream(queuePrefix), '-', '+', 'COUNT', 3) : [];
  return { count, sample };
}
