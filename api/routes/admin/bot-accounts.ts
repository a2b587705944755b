import type { BotAccountSessions } from '../../../shared/accounts/bot-account-sessions.js';
import {
  botAccount,
  botAccounts,
  changeBotAccount,
  registerBotAccount,
  removeBotAccount,
} from '../../../shared/accounts/bot-accounts.js';
import { botAccountJson } from '../../../shared/accounts/serialize.js';
import { botAccountSchema } from '../../../shared/accounts/wire.js';
import { STORAGE_STATE_MAX_BYTES } from '../../../shared/contract/storage-state.js';
import type { Knex } from '../../../shared/infra/knex.js';
import { error, json, ref } from '../../openapi/responses.js';
import type { BodyLimit } from '../route.js';
import { integerIdParameter, invalidIntegerId } from '../path-params.js';
import { limitParameter, offsetParameter } from '../query-params.js';
import { adminAuth, routesOf } from '../route.js';
import {
  createBotAccountRequest,
  listBotAccountsQuery,
  numericIdParams,
  updateBotAccountRequest,
} from './schema.js';

export interface BotAccountRouteDeps {
  db: Knex;
  /** Seals sessions with BOT_ACCOUNT_KEY; without the key every route here answers 503. */
  botAccountSessions: BotAccountSessions;
}

const route = routesOf<BotAccountRouteDeps>();
const badAdminKey = error('Bad admin key');
const notFound = error('Bot account not found');
const notConfigured = error('BOT_ACCOUNT_KEY is not set: signed-in bots are not configured');

/** A session (at most 256 KiB as JSON) with its JSON around it. */
const sessionBodyLimit: BodyLimit = {
  bytes: STORAGE_STATE_MAX_BYTES + 16 * 1024,
  hint: `storage_state may be at most ${STORAGE_STATE_MAX_BYTES} bytes as JSON`,
};

/** Bot accounts for signed-in bots (docs/api.md, "Signed-in bots"); their sessions go in and never out. */
export const botAccountRoutes = [
  route({
    method: 'post',
    path: '/admin/bot-accounts',
    auth: adminAuth,
    body: createBotAccountRequest,
    bodyLimit: sessionBodyLimit,
    summary: 'Register a bot account: a display name and a signed-in browser session',
    description:
      'The session (a Playwright storage state) is sealed with BOT_ACCOUNT_KEY (AES-256-GCM) before it is stored, and no response, log line or metric carries it.',
    responses: {
      201: { description: 'Registered', ...json(botAccountSchema) },
      400: error('Invalid input'),
      403: badAdminKey,
      413: error('Request body too large'),
      503: notConfigured,
    },
    async handler(ctx, { body }, deps) {
      deps.botAccountSessions.assertConfigured();
      const account = await registerBotAccount(deps.db, deps.botAccountSessions, {
        platform: body.platform,
        displayName: body.display_name,
        storageState: body.storage_state,
      });
      ctx.status = 201;
      ctx.body = botAccountJson(account);
    },
  }),

  route({
    method: 'get',
    path: '/admin/bot-accounts',
    auth: adminAuth,
    query: (limits) => listBotAccountsQuery(limits.pageSizes),
    summary: 'List bot accounts (never their sessions)',
    parameters: (limits) => [offsetParameter('skip'), limitParameter('limit', limits.pageSizes)],
    responses: {
      200: {
        description: 'Bot accounts, oldest first',
        content: { 'application/json': { schema: { type: 'array', items: ref(botAccountSchema) } } },
      },
      400: error('Invalid query'),
      403: badAdminKey,
      503: notConfigured,
    },
    async handler(ctx, { query }, deps) {
      deps.botAccountSessions.assertConfigured();
      ctx.body = (await botAccounts(deps.db, query)).map(botAccountJson);
    },
  }),

  route({
    method: 'get',
    path: '/admin/bot-accounts/:id',
    auth: adminAuth,
    params: numericIdParams,
    summary: 'Get a bot account (never its session)',
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'Bot account', ...json(botAccountSchema) },
      400: invalidIntegerId,
      403: badAdminKey,
      404: notFound,
      503: notConfigured,
    },
    async handler(ctx, { params }, deps) {
      deps.botAccountSessions.assertConfigured();
      ctx.body = botAccountJson(await botAccount(deps.db, params.id));
    },
  }),

  route({
    method: 'patch',
    path: '/admin/bot-accounts/:id',
    auth: adminAuth,
    params: numericIdParams,
    body: updateBotAccountRequest,
    bodyLimit: sessionBodyLimit,
    summary: 'Rename a bot account, replace its session, enable or disable it',
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'Bot account', ...json(botAccountSchema) },
      400: error('Invalid input'),
      403: badAdminKey,
      404: notFound,
      413: error('Request body too large'),
      503: notConfigured,
    },
    async handler(ctx, { params, body }, deps) {
      deps.botAccountSessions.assertConfigured();
      ctx.body = botAccountJson(
        await changeBotAccount(deps.db, deps.botAccountSessions, params.id, {
          displayName: body.display_name,
          storageState: body.storage_state,
          enabled: body.enabled,
        }),
      );
    },
  }),

  route({
    method: 'delete',
    path: '/admin/bot-accounts/:id',
    auth: adminAuth,
    params: numericIdParams,
    summary: 'Delete a bot account and its session',
    description: 'Refused (409) while a bot uses it: disable it first, and delete it once its bots ended.',
    parameters: [integerIdParameter],
    responses: {
      204: { description: 'Deleted' },
      400: invalidIntegerId,
      403: badAdminKey,
      404: notFound,
      409: error('Bots are using the account'),
      503: notConfigured,
    },
    async handler(ctx, { params }, deps) {
      deps.botAccountSessions.assertConfigured();
      await removeBotAccount(deps.db, params.id);
      ctx.status = 204;
    },
  }),
];
