import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/infra/config.js';
import { botAclRules, botRedisUrl, botUserPrefix } from '../../../worker/runtime/bot-credentials.js';

describe('a bot’s Redis ACL rules', () => {
  const bot = { meetingId: 42, sessionId: '0b0e-session' };

  it('start from nothing and grant its own keys, its meeting’s command stream read-only, no channel', () => {
    const rules = botAclRules({ prefix: 'meetbot', bot, database: 0 });
    expect(rules.slice(0, 3)).toEqual(['reset', 'resetchannels', 'resetkeys']);
    expect(rules.filter((rule) => rule.includes('~'))).toEqual([
      '~meetbot:bot:0b0e-session:*',
      '~meetbot:bot-alive:0b0e-session',
      '%R~meetbot:bot-commands:42',
    ]);
    expect(rules.some((rule) => rule.startsWith('&') || rule === 'allchannels')).toBe(false);
    expect(rules.at(-1)).toBe('on');
    expect(rules).toContain('-@all');
    expect(rules.filter((rule) => rule.startsWith('+')).sort()).toEqual(
      ['+del', '+exists', '+info', '+ping', '+quit', '+set', '+xadd', '+xread'].sort(),
    );
  });

  it('allow SELECT only when the deployment’s database is not 0', () => {
    expect(botAclRules({ prefix: 'meetbot', bot, database: 0 })).not.toContain('+select');
    expect(botAclRules({ prefix: 'meetbot', bot, database: 3 })).toContain('+select');
  });

  it('escape glob characters, so a pattern never matches more than its own keys', () => {
    const rules = botAclRules({ prefix: 'a*b', bot: { meetingId: 1, sessionId: 's?[x]' }, database: 0 });
    expect(rules).toContain('~a\\*b:bot:s\\?\\[x\\]:*');
  });

  it('name the user by deployment (database included) and put it in the bot’s URL', () => {
    expect(botUserPrefix(parseConfig({ QUEUE_PREFIX: 'acme', REDIS_URL: 'redis://127.0.0.1:6379/2' }))).toBe(
      'acme-db2:bot:',
    );
    const url = new URL(botRedisUrl('rediss://:workers@127.0.0.1:6380/2', 'acme-db2:bot:s1', 'p/w'));
    expect(url.protocol).toBe('rediss:');
    expect(decodeURIComponent(url.username)).toBe('acme-db2:bot:s1');
    expect(decodeURIComponent(url.password)).toBe('p/w');
    expect(url.pathname).toBe('/2');
  });
});
