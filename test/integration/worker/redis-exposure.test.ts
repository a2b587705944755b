import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAnswersWithoutCredential } from '../../../worker/runtime/redis-exposure.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { type OwnRedis, startOwnRedis } from '../../support/redis-server.js';

// The worker's start-up check (worker/main.ts): does Redis answer a client that gives no credential,
// as a bot's code could connect? Against the machine's test Redis (open) and one with a password.

let closed: OwnRedis;
const password = 'a-default-user-password';

beforeAll(async () => {
  closed = await startOwnRedis({ password });
});
afterAll(async () => {
  await closed?.destroy();
});

describe('redisAnswersWithoutCredential', () => {
  it('is true for a Redis whose default user needs no password', async () => {
    expect(await redisAnswersWithoutCredential(TEST_REDIS_URL)).toBe(true);
  });

  it('is false for a Redis that asks for one, though the URL the worker uses carries it', async () => {
    const withPassword = new URL(closed.url);
    withPassword.password = password;
    expect(await redisAnswersWithoutCredential(withPassword.toString())).toBe(false);
  });

  it('says so when nothing answers at all', async () => {
    await expect(redisAnswersWithoutCredential('redis://127.0.0.1:1')).rejects.toThrow(
      /^could not check whether Redis needs a credential/,
    );
  });
});
