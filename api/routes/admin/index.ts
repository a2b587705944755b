import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { apiKeyJson, userJson } from '../../../shared/accounts/serialize.js';
import {
  findOrCreateUser,
  issueUserApiKey,
  listAllUsers,
  revokeUserApiKey,
  updateUserProfile,
  userByEmail,
  userWithKeys,
} from '../../../shared/accounts/service.js';
import { NotFoundError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { WebhookAddressPolicy } from '../../../shared/webhooks/address-policy.js';
import { webhookSettingsJson } from '../../../shared/webhooks/serialize.js';
import { configureUserWebhook, webhookSettings } from '../../../shared/webhooks/service.js';
import type { AppState } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import type { PageSizes } from '../query-params.js';
import { webhookChangeOf, webhookSettingsRequest } from '../user/schema.js';
import {
  createTokenQuery,
  createTokenRequest,
  createUserRequest,
  emailParams,
  listUsersQuery,
  numericIdParams,
  updateUserRequest,
} from './schema.js';

export interface AdminRouterDeps {
  db: Knex;
  requireAdmin: Middleware<AppState>;
  jsonBody: Middleware<AppState>;
  optionalJsonBody: Middleware<AppState>;
  defaultMaxConcurrentBots: number;
  webhookPolicy: WebhookAddressPolicy;
  pageSizes: PageSizes;
}

/** Vexa-shaped admin API (header X-Admin-API-Key), so existing clients and scripts work unchanged. */
export function adminRouter(deps: AdminRouterDeps): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/admin' });
  const usersQuery = listUsersQuery(deps.pageSizes);
  router.use(deps.requireAdmin);

  router.post('/users', deps.jsonBody, async (ctx) => {
    const input = parseInput(createUserRequest, ctx.state.body);
    const { user, created } = await findOrCreateUser(
      deps.db,
      {
        email: input.email,
        name: input.name,
        imageUrl: input.image_url,
        maxConcurrentBots: input.max_concurrent_bots,
        data: input.data,
      },
      deps.defaultMaxConcurrentBots,
    );
    ctx.status = created ? 201 : 200;
    ctx.body = userJson(user);
  });

  router.get('/users', async (ctx) => {
    const page = parseInput(usersQuery, ctx.query, 'Query');
    ctx.body = (await listAllUsers(deps.db, page)).map(userJson);
  });

  router.get('/users/email/:email', async (ctx) => {
    const { email } = parseInput(emailParams, ctx.params, 'Path');
    ctx.body = userJson(await userByEmail(deps.db, email));
  });

  router.get('/users/:id', async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const { user, keys } = await userWithKeys(deps.db, id);
    ctx.body = { ...userJson(user), api_tokens: keys.map(apiKeyJson) };
  });

  router.patch('/users/:id', deps.jsonBody, async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const input = parseInput(updateUserRequest, ctx.state.body);
    const updated = await updateUserProfile(deps.db, id, {
      email: input.email,
      name: input.name,
      imageUrl: input.image_url,
      maxConcurrentBots: input.max_concurrent_bots,
      data: input.data,
    });
    ctx.body = userJson(updated);
  });

  router.get('/users/:id/webhook', async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const settings = await webhookSettings(deps.db, id);
    if (!settings) throw new NotFoundError('User not found');
    ctx.body = webhookSettingsJson(settings);
  });

  router.put('/users/:id/webhook', deps.jsonBody, async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const change = webhookChangeOf(parseInput(webhookSettingsRequest, ctx.state.body));
    const settings = await configureUserWebhook(deps.db, deps.webhookPolicy, id, change);
    if (!settings) throw new NotFoundError('User not found');
    ctx.body = webhookSettingsJson(settings);
  });

  router.post('/users/:id/tokens', deps.optionalJsonBody, async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const body = parseInput(createTokenRequest, ctx.state.body);
    const query = parseInput(createTokenQuery, ctx.query, 'Query');
    const issued = await issueUserApiKey(deps.db, id, body.name ?? query.name ?? null);
    ctx.status = 201;
    ctx.body = { ...apiKeyJson(issued.key), token: issued.token };
  });

  router.delete('/tokens/:id', async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    await revokeUserApiKey(deps.db, id);
    ctx.status = 204;
  });

  return router;
}
