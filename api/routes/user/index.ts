import { SpecErrors, UnauthorizedError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { OutboundAddressPolicy } from '../../../shared/infra/outbound-address-policy.js';
import type { AnnounceChanges } from '../../../shared/meetings/changes.js';
import { deliveryJson, webhookSettingsJson } from '../../../shared/webhooks/serialize.js';
import {
  configureUserWebhook,
  retryFailedDelivery,
  rotateWebhookSecret,
  sendTestWebhook,
  userDeliveries,
  webhookSettings,
} from '../../../shared/webhooks/service.js';
import type { UserWebhookSettings } from '../../../shared/webhooks/settings-store.js';
import {
  deliveryListSchema,
  deliverySchema,
  webhookSettingsSchema,
  webhookTestResultSchema,
} from '../../../shared/webhooks/wire.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { limitParameter, offsetParameter } from '../query-params.js';
import { routesOf, userAuth } from '../route.js';
import { deliveryIdParams, listDeliveriesQuery, webhookChangeOf, webhookSettingsRequest } from './schema.js';

export interface UserRouteDeps {
  db: Knex;
  webhookPolicy: OutboundAddressPolicy;
  webhookTimeoutMs: number;
  /** Wakes the workers' webhook dispatchers (a retried delivery is due). */
  announce: AnnounceChanges;
}

function settingsOf(settings: UserWebhookSettings | undefined) {
  if (!settings) throw new UnauthorizedError(SpecErrors.unauthorized);
  return webhookSettingsJson(settings);
}

const route = routesOf<UserRouteDeps>();
const settingsAnswer = { 200: { description: 'Settings', ...json(webhookSettingsSchema) }, ...commonErrors };

/** The caller's own settings: their webhook endpoint and its deliveries (Vexa's PUT /user/webhook). */
export const userRoutes = [
  route({
    method: 'get',
    path: '/user/webhook',
    auth: userAuth,
    summary: 'Your webhook endpoint, options and signing secret (the secret is created on first use)',
    responses: settingsAnswer,
    async handler(ctx, _input, deps) {
      ctx.body = settingsOf(await webhookSettings(deps.db, requireAuth(ctx).user.id));
    },
  }),

  route({
    method: 'put',
    path: '/user/webhook',
    auth: userAuth,
    body: webhookSettingsRequest,
    summary:
      'Set your webhook endpoint (null turns it off), signing secret and options; every meeting without its own webhook_url reports here',
    responses: {
      200: { description: 'Settings', ...json(webhookSettingsSchema) },
      400: error(
        'Invalid input, or an endpoint the policy refuses (private, loopback, link-local, not https)',
      ),
      ...commonErrors,
    },
    async handler(ctx, { body }, deps) {
      ctx.body = settingsOf(
        await configureUserWebhook(
          deps.db,
          deps.webhookPolicy,
          requireAuth(ctx).user.id,
          webhookChangeOf(body),
        ),
      );
    },
  }),

  route({
    method: 'post',
    path: '/user/webhook/rotate-secret',
    auth: userAuth,
    summary: 'Replace your signing secret with a new random one',
    responses: settingsAnswer,
    async handler(ctx, _input, deps) {
      ctx.body = settingsOf(await rotateWebhookSecret(deps.db, requireAuth(ctx).user.id));
    },
  }),

  route({
    method: 'post',
    path: '/user/webhook/test',
    auth: userAuth,
    summary:
      'Send a signed `webhook.test` event to your endpoint now and report its answer (not stored, not retried)',
    responses: {
      200: { description: 'What the endpoint answered', ...json(webhookTestResultSchema) },
      ...commonErrors,
      409: error('No webhook_url is set'),
    },
    async handler(ctx, _input, deps) {
      ctx.body = await sendTestWebhook(
        deps.db,
        { policy: deps.webhookPolicy, timeoutMs: deps.webhookTimeoutMs },
        requireAuth(ctx).user.id,
      );
    },
  }),

  route({
    method: 'get',
    path: '/user/webhook/deliveries',
    auth: userAuth,
    query: (limits) => listDeliveriesQuery(limits.pageSizes),
    summary: 'Your webhook deliveries, newest first: what went out, what is retrying, what was given up',
    parameters: (limits) => [
      { name: 'status', in: 'query', schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
      { name: 'meeting_id', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
      limitParameter('limit', limits.pageSizes),
      offsetParameter('offset'),
    ],
    responses: {
      200: { description: 'Deliveries', ...json(deliveryListSchema) },
      400: error('Invalid query'),
      ...commonErrors,
    },
    async handler(ctx, { query }, deps) {
      const deliveries = await userDeliveries(deps.db, requireAuth(ctx).user.id, {
        status: query.status,
        meetingId: query.meeting_id,
        limit: query.limit,
        offset: query.offset,
      });
      ctx.body = { deliveries: deliveries.map(deliveryJson) };
    },
  }),

  route({
    method: 'post',
    path: '/user/webhook/deliveries/:id/retry',
    auth: userAuth,
    params: deliveryIdParams,
    summary:
      "Send a failed delivery again, with a fresh retry window, ahead of any of the meeting's deliveries still pending",
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
    responses: {
      202: { description: 'Queued again', ...json(deliverySchema) },
      400: error('`id: must be a delivery id (UUID)`'),
      ...commonErrors,
      404: error('Delivery not found'),
      409: error('Only a failed delivery can be retried'),
    },
    async handler(ctx, { params }, deps) {
      const requeued = await retryFailedDelivery(deps.db, requireAuth(ctx).user.id, params.id);
      await deps.announce([requeued.meetingId]);
      ctx.status = 202;
      ctx.body = deliveryJson(requeued);
    },
  }),
];
