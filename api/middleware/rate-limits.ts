import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../../shared/infra/errors.js';

const WINDOW_SECONDS = 60;

/**
 * Request limits shared by every API replica (counters in Redis, through rate-limiter-flexible).
 * When Redis can't be reached each replica counts on its own (an in-memory stand-in), so a Redis
 * outage neither fails requests nor lifts the limits.
 */
export interface RateLimits {
  /** Counts one request of an API key; throws 429 past RATE_LIMIT_PER_KEY_PER_MINUTE. */
  request(keyId: number): Promise<void>;
  /** Throws 429 while a client address is over AUTH_FAILURES_PER_IP_PER_MINUTE. */
  assertMayAuthenticate(address: string): Promise<void>;
  /** Counts a failed authentication of a client address; throws 429 once it is over the limit. */
  authenticationFailed(address: string): Promise<void>;
  /** Counts one bot action (a chat message, speak or stop speaking, show or stop an image) of an API key; throws 429 past BOT_ACTIONS_PER_KEY_PER_MINUTE. */
  botAction(keyId: number): Promise<void>;
}

export interface RateLimitSettings {
  RATE_LIMIT_PER_KEY_PER_MINUTE: number;
  AUTH_FAILURES_PER_IP_PER_MINUTE: number;
  BOT_ACTIONS_PER_KEY_PER_MINUTE: number;
}

function limiter(redis: Redis, keyPrefix: string, points: number): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix,
    points,
    duration: WINDOW_SECONDS,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS }),
  });
}

function tooMany(message: string, msBeforeNext: number): TooManyRequestsError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new TooManyRequestsError(`${message}; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
}

export function redisRateLimits(redis: Redis, prefix: string, settings: RateLimitSettings): RateLimits {
  const perKey = settings.RATE_LIMIT_PER_KEY_PER_MINUTE;
  const perAddress = settings.AUTH_FAILURES_PER_IP_PER_MINUTE;
  const requests = perKey > 0 ? limiter(redis, `${prefix}:rate:key`, perKey) : undefined;
  const failures = perAddress > 0 ? limiter(redis, `${prefix}:rate:auth-failures`, perAddress) : undefined;
  const perKeyActions = settings.BOT_ACTIONS_PER_KEY_PER_MINUTE;
  const actions = perKeyActions > 0 ? limiter(redis, `${prefix}:rate:bot-actions`, perKeyActions) : undefined;
  /**
   * Addresses this process saw go over their failure limit, until their window ends: checked
   * before every authentication without a Redis round trip. Another replica learns of an address
   * at its own next failure from it, when the shared count answers "over".
   */
  const blocked = new Map<string, number>();
  const failureMessage = `Too many failed authentication attempts from this address (at most ${perAddress} per minute)`;
  return {
    async request(keyId) {
      if (!requests) return;
      try {
        await requests.consume(String(keyId));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw tooMany(
          `Rate limit exceeded: at most ${perKey} requests per minute per API key`,
          rejection.msBeforeNext,
        );
      }
    },
    async botAction(keyId) {
      if (!actions) return;
      try {
        await actions.consume(String(keyId));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw tooMany(
          `Rate limit exceeded: at most ${perKeyActions} bot actions per minute per API key`,
          rejection.msBeforeNext,
        );
      }
    },
    async assertMayAuthenticate(address) {
      const until = blocked.get(address);
      if (until === undefined) return;
      const msLeft = until - Date.now();
      if (msLeft <= 0) {
        blocked.delete(address);
        return;
      }
      throw tooMany(failureMessage, msLeft);
    },
    async authenticationFailed(address) {
      if (!failures) return;
      try {
        await failures.consume(address);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        blocked.set(address, Date.now() + rejection.msBeforeNext);
        if (blocked.size > 10_000) blocked.delete(blocked.keys().next().value as string);
        throw tooMany(failureMessage, rejection.msBeforeNext);
      }
    },
  };
}

/** No limits (the test API's default, and tools that talk to the API in bulk on purpose). */
export const noRateLimits: RateLimits = {
  request: async () => undefined,
  assertMayAuthenticate: async () => undefined,
  authenticationFailed: async () => undefined,
  botAction: async () => undefined,
};
