import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  SpecErrors,
  UnauthorizedError,
} from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import { checkOutboundUrl, type OutboundAddressPolicy } from '../infra/outbound-address-policy.js';
import {
  type DeliveryFilter,
  type DeliveryRecord,
  findUserDelivery,
  listUserDeliveries,
  requeueFailedDelivery,
} from './outbox.js';
import { WEBHOOK_TEST_EVENT } from './payloads.js';
import { sendWebhook } from './sender.js';
import {
  rotateUserWebhookSecret,
  type UserWebhookChange,
  type UserWebhookSettings,
  updateUserWebhook,
  userWebhookSettings,
} from './settings-store.js';
import type { webhookTestResultSchema } from './wire.js';

/** Refuses an endpoint the operator's policy doesn't allow, naming the field and the reason. */
export async function assertWebhookUrlAllowed(
  field: string,
  url: string,
  policy: OutboundAddressPolicy,
): Promise<string> {
  const check = await checkOutboundUrl(url, policy);
  if (!check.ok) throw new BadRequestError(`${field}: ${check.reason}`);
  return check.url.href;
}

/** The user's settings (their signing secret is created on first use); undefined if there's no such user. */
export function webhookSettings(db: Knex, userId: number): Promise<UserWebhookSettings | undefined> {
  return userWebhookSettings(db, userId);
}

/** Sets a user's endpoint (null turns it off), secret and options; undefined if there's no such user. */
export async function configureUserWebhook(
  db: Knex,
  policy: OutboundAddressPolicy,
  userId: number,
  change: UserWebhookChange & { url: string | null },
): Promise<UserWebhookSettings | undefined> {
  const url = change.url === null ? null : await assertWebhookUrlAllowed('webhook_url', change.url, policy);
  return updateUserWebhook(db, userId, { ...change, url });
}

/** Replaces the user's signing secret with a new random one. */
export function rotateWebhookSecret(db: Knex, userId: number): Promise<UserWebhookSettings | undefined> {
  return rotateUserWebhookSecret(db, userId);
}

export type WebhookTestResult = z.infer<typeof webhookTestResultSchema>;

/**
 * Sends one signed `webhook.test` event to the user's endpoint right away and reports what it
 * answered, so a receiver and its signature check can be tried before a real meeting.
 */
export async function sendTestWebhook(
  db: Knex,
  options: { policy: OutboundAddressPolicy; timeoutMs: number },
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

/** The user's deliveries, newest first. */
export function userDeliveries(db: Knex, userId: number, filter: DeliveryFilter): Promise<DeliveryRecord[]> {
  return listUserDeliveries(db, userId, filter);
}

/**
 * Sends a failed delivery again, with a fresh retry window. The caller announces its meeting so a
 * worker queues it. 409 for a delivery that isn't failed, 404 for one the user doesn't have.
 */
export async function retryFailedDelivery(db: Knex, userId: number, id: string): Promise<DeliveryRecord> {
  const requeued = await requeueFailedDelivery(db, userId, id);
  if (requeued) return requeued;
  if (await findUserDelivery(db, userId, id))
    throw new ConflictError('Only a failed delivery can be retried');
  throw new NotFoundError('Delivery not found');
}
