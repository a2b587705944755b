import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../../shared/infra/config.js';

describe('parseConfig', () => {
  it('works with no variables set, on local defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/meetbot',
      REDIS_URL: 'redis://127.0.0.1:6379',
      API_HOST: '127.0.0.1',
      API_PORT: 8056,
      QUEUE_PREFIX: 'meetbot',
      EXTRA_MEETING_ORIGINS: [],
      TRUST_PROXY: false,
    });
    expect(config.ADMIN_API_KEY).toBeUndefined();
  });

  it('coerces numbers, lists and flags, and treats empty values as unset', () => {
    const config = parseConfig({
      API_PORT: '9000',
      EXTRA_MEETING_ORIGINS: ' http://127.0.0.1:4100 , https://sim.local ',
      TRUST_PROXY: 'true',
      ADMIN_API_KEY: '',
    });
    expect(config.API_PORT).toBe(9000);
    expect(config.EXTRA_MEETING_ORIGINS).toEqual(['http://127.0.0.1:4100', 'https://sim.local']);
    expect(config.TRUST_PROXY).toBe(true);
    expect(config.ADMIN_API_KEY).toBeUndefined();
  });

  it('lists every problem at once', () => {
    let caught: unknown;
    try {
      parseConfig({
        API_PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        ADMIN_API_KEY: 'short',
        EXTRA_MEETING_ORIGINS: 'ftp://x',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^API_PORT: /m);
    expect(problems).toMatch(/^DATABASE_URL: /m);
    expect(problems).toMatch(/^ADMIN_API_KEY: /m);
    expect(problems).toMatch(/^EXTRA_MEETING_ORIGINS\.0: /m);
  });

  it('keeps the lost-host timeout well above the heartbeat interval', () => {
    expect(() => parseConfig({ WORKER_HEARTBEAT_SECONDS: '10', WORKER_LOST_AFTER_SECONDS: '15' })).toThrow(
      /WORKER_LOST_AFTER_SECONDS: must be at least twice WORKER_HEARTBEAT_SECONDS/,
    );
    expect(parseConfig({})).toMatchObject({
      WORKER_HEARTBEAT_SECONDS: 5,
      WORKER_LOST_AFTER_SECONDS: 30,
      BOT_MAX_RELAUNCHES: 2,
    });
    expect(() => parseConfig({ DOCKER_HOST_NAME: 'host a' })).toThrow(/DOCKER_HOST_NAME/);
  });

  it('keeps a bot in its meeting no longer than a transcript segment may be timed (7 days)', () => {
    expect(parseConfig({ BOT_MAX_DURATION_SECONDS: '604800' }).BOT_MAX_DURATION_SECONDS).toBe(604_800);
    expect(() => parseConfig({ BOT_MAX_DURATION_SECONDS: '604801' })).toThrow(/BOT_MAX_DURATION_SECONDS/);
  });

  it('checks the webhook retry settings against each other', () => {
    expect(() => parseConfig({ WEBHOOK_RETRY_BASE_MS: '5000', WEBHOOK_RETRY_MAX_DELAY_MS: '1000' })).toThrow(
      /WEBHOOK_RETRY_MAX_DELAY_MS: must be at least WEBHOOK_RETRY_BASE_MS/,
    );
    const config = parseConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' });
    expect(config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES).toBe(true);
    expect(config.WEBHOOK_ALLOW_HTTP).toBe(false);
    expect(config.WEBHOOK_RETRY_WINDOW_SECONDS).toBe(86_400);
  });

  it('keeps searches to a share of the pool: SEARCH_CONCURRENCY no larger than DATABASE_POOL_MAX', () => {
    const defaults = parseConfig({});
    expect(defaults.SEARCH_CONCURRENCY).toBeUndefined();
    expect(defaults.SEARCH_CONCURRENCY_PER_USER).toBe(2);
    expect(defaults.MAX_SCHEDULED_BOTS_PER_USER).toBe(500);
    expect(parseConfig({ DATABASE_POOL_MAX: '20', SEARCH_CONCURRENCY: '20' }).SEARCH_CONCURRENCY).toBe(20);
    expect(() => parseConfig({ SEARCH_CONCURRENCY: '11' })).toThrow(
      /SEARCH_CONCURRENCY: must be at most DATABASE_POOL_MAX/,
    );
  });
});

describe('EMBEDDED_PROFILE', () => {
  it('defaults to the balanced profile and accepts each named one', () => {
    expect(parseConfig({}).EMBEDDED_PROFILE).toBe('balanced');
    for (const profile of ['accurate', 'balanced', 'fast']) {
      expect(parseConfig({ EMBEDDED_PROFILE: profile }).EMBEDDED_PROFILE).toBe(profile);
    }
  });

  it('refuses anything else with the choices in the message', () => {
    expect(() => parseConfig({ EMBEDDED_PROFILE: 'turbo' })).toThrow(
      /EMBEDDED_PROFILE: must be one of accurate, balanced, fast/,
    );
  });
});
