import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { SpecErrors, UnauthorizedError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { AnnounceChanges } from '../../../shared/meetings/changes.js';
import type { WebhookAddressPolicy } from '../../../shared/webhooks/address-policy.js';
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
import { type AppState, requireAuth } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import type { PageSizes } from '../query-params.js';
import { deliveryIdParams, listDeliveriesQuery, webhookChangeOf, webhookSettingsRequest } from './schema.js';

export interface UserRouterDeps {
  db: Knex;
  requireUser: Middleware<AppState>;
  jsonBody: Middleware<AppState>;
  webhookPolicy: WebhookAddressPolicy;
  webhookTimeoutMs: number;
  /** Wakes the workers' webhook dispatchers (a retried delivery is due). */
  announce: AnnounceChanges;
  pageSizes: PageSizes;
}

/** The caller's own settings: their webhook endpoint and its deliveries (Vexa's PUT /user/webhook). */
export function userRouter(deps: UserRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  const deliveriesQuery = listDeliveriesQuery(deps.pageSizes);
  const settingsOf = (settings: UserWebhookSettings | undefined) => {
    if (!settings) throw new UnauthorizedError(SpecErrors.unauthorized);
    return webhookSettingsJson(settings);
  };

  router.get('/user/webhook', deps.requireUser, async (ctx) => {
    ctx.body = settingsOf(await webhookSettings(deps.db, requireAuth(ctx).user.id));
  });

  router.put('/user/webhook', deps.requireUser, deps.jsonBody, async (ctx) => {
    const change = webhookChangeOf(parseInput(webhookSettingsRequest, ctx.state.body));
    ctx.body = settingsOf(
      await configureUserWebhook(deps.db, deps.webhookPolicy, requireAuth(ctx).user.id, change),
    );
  });

  router.post('/user/webhook/rotate-secret', deps.requireUser, async (ctx) => {
    ctx.body = settingsOf(await rotateWebhookSecret(deps.db, requireAuth(ctx).user.id));
  });

  router.post('/user/webhook/test', deps.requireUser, async (ctx) => {
    ctx.body = await sendTestWebhook(
      deps.db,
      { policy: deps.webhookPolicy, timeoutMs: deps.webhookTimeoutMs },
      requireAuth(ctx).user.id,
    );
  });

  router.get('/user/webhook/deliveries', deps.requireUser, async (ctx) => {
    const query = parseInput(deliveriesQuery, ctx.query, 'Query');
    const deliveries = await userDeliveries(deps.db, requireAuth(ctx).user.id, {
      status: query.status,
      meetingId: query.meeting_id,
      limit: query.limit,
      offset: query.offset,
    });
    ctx.body = { deliveries: deliveries.map(deliveryJson) };
  });

  router.post('/user/webhook/deliveries/:id/retry', deps.requireUser, async (ctx) => {
    const { id } = parseInput(deliveryIdParams, ctx.params, 'Path');
    const requeued = await retryFailedDelivery(deps.db, requireAuth(ctx).user.id, id);
    await deps.announce([requeued.meetingId]);
    ctx.status = 202;
    ctx.body = deliveryJson(requeued);
  });

  return router;
}
