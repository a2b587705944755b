import { Redis } from 'ioredis';

/**
 * Does the Redis at `url` answer a client that gives no credential, as a bot's code could connect
 * (bots share the host's network)? A bot's own Redis user only confines it when the answer is no.
 * Connects once, without the URL's user and password, and asks for PING.
 */
export async function redisAnswersWithoutCredential(url: string): Promise<boolean> {
  const anonymous = new URL(url);
  anonymous.username = '';
  anonymous.password = '';
  const client = new Redis(anonymous.toString(), {
    lazyConnect: true,
    enableReadyCheck: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    if (/NOAUTH|WRONGPASS|NOPERM|invalid password|Authentication required/i.test((error as Error).message))
      return false;
    throw new Error(`could not check whether Redis needs a credential: ${(error as Error).message}`);
  } finally {
    client.disconnect();
  }
}
