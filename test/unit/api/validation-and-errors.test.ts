import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorBodies } from '../../../api/middleware/errors.js';
import { parseInput } from '../../../api/middleware/validate.js';
import { botRequestOf, createBotRequest } from '../../../api/routes/bots/schema.js';
import { generateApiKey, hashApiKey } from '../../../shared/accounts/api-keys.js';
import { resolveCreateBot } from '../../../shared/bots/service.js';
import { BadRequestError, NotFoundError } from '../../../shared/infra/errors.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { splitMergePatch } from '../../../shared/infra/merge-patch.js';

describe('parseInput', () => {
  const schema = z.object({
    data: z.object({ participants: z.array(z.string({ error: 'must be a string' })) }),
  });

  it('names the offending field, with array positions', () => {
    expect(() => parseInput(schema, { data: { participants: ['a', 2] } })).toThrow(
      new BadRequestError('data.participants[1]: must be a string'),
    );
  });

  it('names the root when the input itself is wrong', () => {
    expect(() => parseInput(z.object({}, { error: 'must be a JSON object' }), 'x')).toThrow(
      'Request body: must be a JSON object',
    );
  });
});

describe('resolveCreateBot', () => {
  const options = { defaultBotName: 'Meetbot', extraMeetingOrigins: [] };
  const parse = (body: unknown) => botRequestOf(createBotRequest.parse(body));

  it('checks the id format before anything platform-specific, with the spec message', () => {
    expect(() => resolveCreateBot(parse({ platform: 'teams', native_meeting_id: 'abc' }), options)).toThrow(
      'Invalid meeting ID format',
    );
  });

  it('requires a passcode for Teams and builds the default URLs', () => {
    expect(() => resolveCreateBot(parse({ platform: 'teams', native_meeting_id: '123' }), options)).toThrow(
      /^passcode: /,
    );
    expect(
      resolveCreateBot(parse({ platform: 'teams', native_meeting_id: '123', passcode: 'pw' }), options),
    ).toEqual({
      platform: 'teams',
      nativeMeetingId: '123',
      meetingUrl: 'https://teams.microsoft.com/meet/123?p=pw',
      passcode: 'pw',
      botName: 'Meetbot',
    });
  });

  it('trims the bot name', () => {
    const resolved = resolveCreateBot(
      parse({ platform: 'google_meet', native_meeting_id: 'abc-defg-hij', bot_name: '  Notes ' }),
      options,
    );
    expect(resolved.botName).toBe('Notes');
  });
});

describe('errorBodies middleware', () => {
  async function run(handler: Koa.Middleware): Promise<{ status: number; body: unknown }> {
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx, next) => {
      ctx.state.log = createLogger('test', 'silent');
      await next();
    });
    app.use(errorBodies());
    app.use(handler);
    const server = app.listen(0);
    try {
      const port = (server.address() as { port: number }).port;
      const response = await fetch(`http://127.0.0.1:${port}/`);
      return { status: response.status, body: await response.json() };
    } finally {
      server.close();
    }
  }

  it('maps application errors to their status and message', async () => {
    expect(
      await run(() => {
        throw new NotFoundError('Meeting not found');
      }),
    ).toEqual({ status: 404, body: { error: 'Meeting not found' } });
  });

  it('hides unexpected errors behind a 500 with no details', async () => {
    const result = await run(() => {
      throw new Error('connection string postgres://secret');
    });
    expect(result).toEqual({ status: 500, body: { error: 'Internal server error' } });
  });

  it('answers 503 with Retry-After, not 500, while Postgres is unreachable', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(
      await run(() => {
        throw refused;
      }),
    ).toEqual({ status: 503, body: { error: 'Database unavailable; try again shortly' } });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    expect((await run(() => Promise.reject(shutdown))).status).toBe(503);
  });

  it('gives unanswered requests a JSON 404', async () => {
    expect(await run(async () => {})).toEqual({ status: 404, body: { error: 'Not found' } });
  });
});

describe('merge patches', () => {
  it('splits set members from removed (null) ones and ignores undefined', () => {
    expect(splitMergePatch({ name: 'x', notes: null, languages: undefined, participants: [] })).toEqual({
      set: { name: 'x', participants: [] },
      remove: ['notes'],
    });
  });
});

describe('API keys', () => {
  it('are random, prefixed, and stored as a SHA-256 of the token', () => {
    const first = generateApiKey();
    const second = generateApiKey();
    expect(first.token).not.toBe(second.token);
    expect(first.token).toMatch(/^mb_[A-Za-z0-9_-]{40}$/);
    expect(first.token.startsWith(first.prefix)).toBe(true);
    expect(first.hash).toBe(hashApiKey(first.token));
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
