import { z } from 'zod';
import { isoTimestamp } from '../infra/timestamps.js';
import { DELIVERY_STATUSES } from './outbox.js';
import { WEBHOOK_EVENT_TYPES } from './payloads.js';

/** Webhook settings and deliveries as the API shows them (responses; also the OpenAPI document's schemas). */

export const webhookSettingsSchema = z
  .object({
    webhook_url: z.string().nullable(),
    webhook_secret: z.string().describe('Verify the X-Webhook-Signature header with it'),
    webhook_partial_segments: z.boolean(),
  })
  .meta({ id: 'WebhookSettings' });

export const webhookTestResultSchema = z
  .object({
    id: z.uuid(),
    type: z.literal('webhook.test'),
    webhook_url: z.string(),
    delivered: z.boolean().describe('true when the endpoint answered 2xx'),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookTestResult' });

export const deliverySchema = z
  .object({
    id: z.uuid().describe('The event id, also sent as X-Webhook-Id and `id` in the body'),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    meeting_id: z.number().int(),
    url: z.string(),
    status: z.enum(DELIVERY_STATUSES).describe('failed: given up after the retry window'),
    attempts: z.number().int(),
    last_attempt_at: isoTimestamp.nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: isoTimestamp,
    delivered_at: isoTimestamp.nullable(),
    failed_at: isoTimestamp.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryListSchema = z
  .object({ deliveries: z.array(deliverySchema) })
  .meta({ id: 'WebhookDeliveryList' });
