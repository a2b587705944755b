import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import { findOrCreateUser, issueApiKey } from '../../../shared/accounts/service.js';
import { type ApiKeyRecord, listApiKeys, revokeApiKey } from '../../../shared/accounts/keys-store.js';
import type { Knex } from '../../../shared/infra/knex.js';
import {
  findUserByEmail,
  findUserById,
  listUsers,
  type UserRecord,
  updateUser,
} from '../../../shared/accounts/users-store.js';
import { BadRequestError, NotFoundError } from '../../../shared/infra/errors.js';
import type { AppState } from '../../context.js';
import { userWebhookSettings } from '../../../shared/webhooks/settings-store.js';
import type { WebhookAddressPolicy } from '../../../shared/webhooks/address-policy.js';
import { configureUserWebhook, webhookSettingsJson } from '../../../shared/webhooks/service.js';
import { webhookSettingsRequest } from '../user/schema.js';
import { parseInput } from '../../middleware/validate.js';
import {
  type apiKeySummarySchema,
  createTokenRequest,
  createUserRequest,
  listUsersQuery,
  numericIdParams,
  updateUserRequest,
  type userSchema,
} from './schema.js';
import { isoOrNull } from '../../../shared/infra/timestamps.js';

export interface AdminRouterDeps {
  db: Knex;
  requireAdmin: Middleware<AppState>;
  jsonBody: Middleware<AppState>;
  optionalJsonBody: Middleware<AppState>;
  defaultMaxConcurrentBots: number;
  webhookPolicy: WebhookAddressPolicy;
}

export function userJson(user: UserRecord): z.infer<typeof userSchema> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    image_url: user.imageUrl,
    max_concurrent_bots: user.maxConcurrentBots,
    data: user.data,
    created_at: user.createdAt.toISOString(),
  };
}

export function apiKeyJson(key: ApiKeyRecord): z.infer<typeof apiKeySummarySchema> {
  return {
    id: key.id,
    user_id: key.userId,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: isoOrNull(key.lastUsedAt),
    revoked_at: isoOrNull(key.revokedAt),
  };
}

/** Vexa-shaped admin API (header X-Admin-API-Key), so existing clients and scripts work unchanged. */
export function adminRouter(deps: AdminRouterDeps): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/admin' });
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
    const page = parseInput(listUsersQuery, ctx.query, 'Query');
    ctx.body = (await listUsers(deps.db, page)).map(userJson);
  });

  router.get('/users/email/:email', async (ctx) => {
    const user = await findUserByEmail(deps.db, String(ctx.params.email));
    if (!user) throw new NotFoundError('User not found');
    ctx.body = userJson(user);
  });

  router.get('/users/:id', async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const user = await findUserById(deps.db, id);
    if (!user) throw new NotFoundError('User not found');
    ctx.body = { ...userJson(user), api_tokens: (await listApiKeys(deps.db, id)).map(apiKeyJson) };
  });

  router.patch('/users/:id', deps.jsonBody, async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const input = parseInput(updateUserRequest, ctx.state.body);
    const user = await findUserById(deps.db, id);
    if (!user) throw new NotFoundError('User not found');
    if (input.email !== undefined && input.email.toLowerCase() !== user.email.toLowerCase()) {
      throw new BadRequestError('email: cannot be changed');
    }
    const updated = await updateUser(deps.db, id, {
      name: input.name,
      imageUrl: input.image_url,
      maxConcurrentBots: input.max_concurrent_bots,
      data: input.data,
    });
    if (!updated) throw new NotFoundError('User not found');
    ctx.body = userJson(updated);
  });

  router.get('/users/:id/webhook', async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const settings = await userWebhookSettings(deps.db, id);
    if (!settings) throw new NotFoundError('User not found');
    ctx.body = webhookSettingsJson(settings);
  });

  router.put('/users/:id/webhook', deps.jsonBody, async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const request = parseInput(webhookSettingsRequest, ctx.state.body);
    const settings = await configureUserWebhook(deps.db, deps.webhookPolicy, id, request);
    if (!settings) throw new NotFoundError('User not found');
    ctx.body = webhookSettingsJson(settings);
  });

  router.post('/users/:id/tokens', deps.optionalJsonBody, async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const body = parseInput(createTokenRequest, ctx.state.body);
    const queryName = typeof ctx.query.name === 'string' ? ctx.query.name : undefined;
    const user = await findUserById(deps.db, id);
    if (!user) throw new NotFoundError('User not found');
    const issued = await issueApiKey(deps.db, id, body.name ?? queryName ?? null);
    ctx.status = 201;
    ctx.body = { ...apiKeyJson(issued.key), token: issued.token };
  });

  router.delete('/tokens/:id', async (ctx) => {
    const { id } = parseInput(numericIdParams, ctx.params, 'Path');
    const key = await revokeApiKey(deps.db, id);
    if (!key) throw new NotFoundError('Token not found');
    ctx.status = 204;
  });

  return router;
}
