import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Knex } from '../infra/knex.js';
import { type UserWebhookSettings, updateUserWebhook, userWebhookSettings } from './settings-store.js';
import type { DeliveryRecord } from './outbox.js';
import { BadRequestError, ConflictError, SpecErrors, UnauthorizedError } from '../infra/errors.js';
import { WEBHOOK_TEST_EVENT } from './payloads.js';
import { sendWebhook } from './sender.js';
import { checkWebhookUrl, type WebhookAddressPolicy } from './address-policy.js';
import type {
  deliverySchema,
  WebhookSettingsRequest,
  webhookSettingsSchema,
  webhookTestResultSchema,
} from '../../api/routes/user/schema.js';
import { isoOrNull } from '../infra/timestamps.js';

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

export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/**
 * Sends one signed `webhook.test` event to the user's endpoint right away and reports what it
 * answered, so a receiver and its signature check can be tried before a real meeting.
 */
export async function sendTestWebhook(
  db: Knex,
  options: { policy: WebhookAddressPolicy; timeoutMs: number },
  userId: number,
): Promise<WebhookTestResult> {
  const settings = await userWebhookSettings(db, userId);
  if (!settings) throw new UnauthorizedError(SpecErrors.unauthorized);
  if (!settings.url) throw new ConflictError('No webhook_url is set; set one with PUT /user/webhook');
  const id = randomUUID();
  const body = JSON.stringify({
    id,
    type: WEBHOOK_TEST_EVENT,
    created_at: new Date().toISOString(),
    data: { message: 'A test event from Meetbot: your endpoint and signature check work.' },
  });
  const result = await sendWebhook(
    { url: settings.url, id, type: WEBHOOK_TEST_EVENT, body, secret: settings.secret },
    options,
  );
  return {
    id,
    type: WEBHOOK_TEST_EVENT,
    webhook_url: settings.url,
    delivered: result.ok,
    status_code: result.statusCode,
    error: result.ok ? null : result.error,
  };
}

export function webhookSettingsJson(settings: UserWebhookSettings): z.infer<typeof webhookSettingsSchema> {
  return {
    webhook_url: settings.url,
    webhook_secret: settings.secret,
    webhook_partial_segments: settings.partialSegments,
  };
}

export function deliveryJson(delivery: DeliveryRecord): z.infer<typeof deliverySchema> {
  return {
    id: delivery.id,
    type: delivery.eventType,
    meeting_id: delivery.meetingId,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    last_attempt_at: isoOrNull(delivery.lastAttemptAt),
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: isoOrNull(delivery.deliveredAt),
    failed_at: isoOrNull(delivery.failedAt),
  };
}
