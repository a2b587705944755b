import type { z } from 'zod';
import type { DeliveryRecord } from '../../shared/db/webhook-deliveries.js';
import type { Knex } from '../../shared/db/knex.js';
import { type UserWebhookSettings, updateUserWebhook } from '../../shared/db/user-webhooks.js';
import { BadRequestError } from '../../shared/errors.js';
import { checkWebhookUrl, type WebhookAddressPolicy } from '../../shared/webhooks/address-policy.js';
import type { deliverySchema, WebhookSettingsRequest, webhookSettingsSchema } from '../routes/user/schema.js';

/** Refuses an endpoint the operator's policy doesn't allow, naming the field and the reason. */
export async function assertWebhookUrlAllowed(
  field: string,
  url: string,
  policy: WebhookAddressPolicy,
): Promise<string> {
  const check = await checkWebhookUrl(url, policy);
  if (!check.ok) throw new BadRequestError(`${field}: ${check.reason}`);
  return check.url.href;
}

/** Sets a user's endpoint (null turns it off), secret and options; undefined if there's no such user. */
export async function configureUserWebhook(
  db: Knex,
  policy: WebhookAddressPolicy,
  userId: number,
  request: WebhookSettingsRequest,
): Promise<UserWebhookSettings | undefined> {
  const url =
    request.webhook_url === null
      ? null
      : await assertWebhookUrlAllowed('webhook_url', request.webhook_url, policy);
  return updateUserWebhook(db, userId, {
    url,
    secret: request.webhook_secret,
    partialSegments: request.webhook_partial_segments,
  });
}

export function webhookSettingsJson(settings: UserWebhookSettings): z.infer<typeof webhookSettingsSchema> {
  return {
    webhook_url: settings.url,
    webhook_secret: settings.secret,
    webhook_partial_segments: settings.partialSegments,
  };
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

export function deliveryJson(delivery: DeliveryRecord): z.infer<typeof deliverySchema> {
  return {
    id: delivery.id,
    type: delivery.eventType,
    meeting_id: delivery.meetingId,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    last_attempt_at: iso(delivery.lastAttemptAt),
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: iso(delivery.deliveredAt),
    failed_at: iso(delivery.failedAt),
  };
}
