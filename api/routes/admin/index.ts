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
import { issuedTokenSchema, userDetailSchema, userSchema } from '../../../shared/accounts/wire.js';
import { NotFoundError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { OutboundAddressPolicy } from '../../../shared/infra/outbound-address-policy.js';
import type { RecordingStorage } from '../../../shared/recordings/storage.js';
import { deleteUserAndData } from '../../../shared/recordings/user-erasure.js';
import { webhookSettingsJson } from '../../../shared/webhooks/serialize.js';
import { configureUserWebhook, webhookSettings } from '../../../shared/webhooks/service.js';
import { webhookSettingsSchema } from '../../../shared/webhooks/wire.js';
import { error, json, ref } from '../../openapi/responses.js';
import { integerIdParameter, invalidIntegerId } from '../path-params.js';
import { limitParameter, offsetParameter } from '../query-params.js';
import { adminAuth, type Route, routesOf } from '../route.js';
import { webhookChangeOf, webhookSettingsRequest } from '../user/schema.js';
import { type BotAccountRouteDeps, botAccountRoutes } from './bot-accounts.js';
import {
  createTokenQuery,
  createTokenRequest,
  createUserRequest,
  emailParams,
  listUsersQuery,
  numericIdParams,
  updateUserRequest,
} from './schema.js';

export interface AdminRouteDeps extends BotAccountRouteDeps {
  db: Knex;
  defaultMaxConcurrentBots: number;
  webhookPolicy: OutboundAddressPolicy;
  /** Where recordings are kept: deleting a user removes their files. */
  recordingStorage: RecordingStorage;
}

const route = routesOf<AdminRouteDeps>();
const badAdminKey = error('Bad admin key');
const userNotFound = error('User not found');

/** Vexa-shaped admin API (header X-Admin-API-Key), so existing clients and scripts work unchanged. */
export const adminRoutes: Route<AdminRouteDeps>[] = [
  route({
    method: 'post',
    path: '/admin/users',
    auth: adminAuth,
    body: createUserRequest,
    summary: 'Find or create a user by email',
    responses: {
      200: { description: 'Existing user', ...json(userSchema) },
      201: { description: 'Created', ...json(userSchema) },
      400: error('Invalid input'),
      403: badAdminKey,
    },
    async handler(ctx, { body }, deps) {
      const { user, created } = await findOrCreateUser(
        deps.db,
        {
          email: body.email,
          name: body.name,
          imageUrl: body.image_url,
          maxConcurrentBots: body.max_concurrent_bots,
          data: body.data,
        },
        deps.defaultMaxConcurrentBots,
      );
      ctx.status = created ? 201 : 200;
      ctx.body = userJson(user);
    },
  }),

  route({
    method: 'get',
    path: '/admin/users',
    auth: adminAuth,
    query: (limits) => listUsersQuery(limits.pageSizes),
    summary: 'List users',
    parameters: (limits) => [offsetParameter('skip'), limitParameter('limit', limits.pageSizes)],
    responses: {
      200: {
        description: 'Users',
        content: { 'application/json': { schema: { type: 'array', items: ref(userSchema) } } },
      },
      400: error('Invalid query'),
      403: badAdminKey,
    },
    async handler(ctx, { query }, deps) {
      ctx.body = (await listAllUsers(deps.db, query)).map(userJson);
    },
  }),

  route({
    method: 'get',
    path: '/admin/users/email/:email',
    auth: adminAuth,
    params: emailParams,
    summary: 'Get a user by email',
    parameters: [{ name: 'email', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: { description: 'User', ...json(userSchema) },
      400: error('`email: is too long`'),
      403: badAdminKey,
      404: userNotFound,
    },
    async handler(ctx, { params }, deps) {
      ctx.body = userJson(await userByEmail(deps.db, params.email));
    },
  }),

  route({
    method: 'get',
    path: '/admin/users/:id',
    auth: adminAuth,
    params: numericIdParams,
    summary: 'Get a user with their API keys (never the secrets)',
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'User', ...json(userDetailSchema) },
      400: invalidIntegerId,
      403: badAdminKey,
      404: userNotFound,
    },
    async handler(ctx, { params }, deps) {
      const { user, keys } = await userWithKeys(deps.db, params.id);
      ctx.body = { ...userJson(user), api_tokens: keys.map(apiKeyJson) };
    },
  }),

  route({
    method: 'patch',
    path: '/admin/users/:id',
    auth: adminAuth,
    params: numericIdParams,
    body: updateUserRequest,
    summary: 'Update a user (name, image_url, max_concurrent_bots, data merge)',
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'User', ...json(userSchema) },
      400: error('Invalid input'),
      403: badAdminKey,
      404: userNotFound,
    },
    async handler(ctx, { params, body }, deps) {
      const updated = await updateUserProfile(deps.db, params.id, {
        email: body.email,
        name: body.name,
        imageUrl: body.image_url,
        maxConcurrentBots: body.max_concurrent_bots,
        data: body.data,
      });
      ctx.body = userJson(updated);
    },
  }),

  route({
    method: 'delete',
    path: '/admin/users/:id',
    auth: adminAuth,
    params: numericIdParams,
    summary:
      'Delete a user and everything they have: API keys, meetings, transcripts, webhook settings and deliveries, recordings with their files',
    description:
      'Refused (409) while any of their bots is still in flight: stop those first. The rows go at once, in one transaction; recording files are removed before the answer, or shortly after by the worker when the storage is unreachable.',
    parameters: [integerIdParameter],
    responses: {
      204: { description: 'Deleted' },
      400: invalidIntegerId,
      403: badAdminKey,
      404: userNotFound,
      409: error('The user still has bots running (their meeting ids are named): stop them first'),
    },
    async handler(ctx, { params }, deps) {
      await deleteUserAndData({ db: deps.db, storage: deps.recordingStorage, log: ctx.state.log }, params.id);
      ctx.status = 204;
    },
  }),

  route({
    method: 'post',
    path: '/admin/users/:id/tokens',
    auth: adminAuth,
    params: numericIdParams,
    body: createTokenRequest,
    bodyMayBeEmpty: true,
    query: createTokenQuery,
    summary: 'Issue a new API key; the key is returned once, as `token`',
    parameters: [
      integerIdParameter,
      { name: 'name', in: 'query', required: false, schema: { type: 'string' } },
    ],
    responses: {
      201: { description: 'Issued', ...json(issuedTokenSchema) },
      400: error('Invalid input'),
      403: badAdminKey,
      404: userNotFound,
    },
    async handler(ctx, { params, body, query }, deps) {
      const issued = await issueUserApiKey(deps.db, params.id, body.name ?? query.name ?? null);
      ctx.status = 201;
      ctx.body = { ...apiKeyJson(issued.key), token: issued.token };
    },
  }),

  route({
    method: 'get',
    path: '/admin/users/:id/webhook',
    auth: adminAuth,
    params: numericIdParams,
    summary: "A user's webhook settings",
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'Settings', ...json(webhookSettingsSchema) },
      400: invalidIntegerId,
      403: badAdminKey,
      404: userNotFound,
    },
    async handler(ctx, { params }, deps) {
      const settings = await webhookSettings(deps.db, params.id);
      if (!settings) throw new NotFoundError('User not found');
      ctx.body = webhookSettingsJson(settings);
    },
  }),

  route({
    method: 'put',
    path: '/admin/users/:id/webhook',
    auth: adminAuth,
    params: numericIdParams,
    body: webhookSettingsRequest,
    summary: "Set a user's webhook endpoint, secret and options (as PUT /user/webhook)",
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'Settings', ...json(webhookSettingsSchema) },
      400: error('Invalid input or refused endpoint'),
      403: badAdminKey,
      404: userNotFound,
    },
    async handler(ctx, { params, body }, deps) {
      const change = webhookChangeOf(body);
      const settings = await configureUserWebhook(deps.db, deps.webhookPolicy, params.id, change);
      if (!settings) throw new NotFoundError('User not found');
      ctx.body = webhookSettingsJson(settings);
    },
  }),

  route({
    method: 'delete',
    path: '/admin/tokens/:id',
    auth: adminAuth,
    params: numericIdParams,
    summary: 'Revoke an API key',
    parameters: [integerIdParameter],
    responses: {
      204: { description: 'Revoked' },
      400: invalidIntegerId,
      403: badAdminKey,
      404: error('Token not found'),
    },
    async handler(ctx, { params }, deps) {
      await revokeUserApiKey(deps.db, params.id);
      ctx.status = 204;
    },
  }),
  ...botAccountRoutes,
];
