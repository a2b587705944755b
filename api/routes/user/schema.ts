import { z } from 'zod';
import { isoTimestamp } from '../../../shared/infra/timestamps.js';
import { DELIVERY_STATUSES } from '../../../shared/webhooks/outbox.js';
import { WEBHOOK_EVENT_TYPES } from '../../../shared/webhooks/payloads.js';

export const webhookUrl = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2048 characters')
  .describe(
    'https endpoint; private, loopback and link-local addresses are refused unless the operator allows them',
  );
export const webhookSecret = z
  .string({ error: 'must be a string' })
  .min(16, 'must be at least 16 characters')
  .max(256, 'must be at most 256 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  .describe('Signing secret; one is generated when none is given');
export const webhookPartialSegments = z
  .boolean({ error: 'must be true or false' })
  .describe('Also send mutable (not yet final) segments, each time they change. Default false.');

export const webhookSettingsRequest = z
  .object(
    {
      webhook_url: webhookUrl.nullable().describe('The endpoint; null turns webhooks off'),
      webhook_secret: webhookSecret.optional(),
      webhook_partial_segments: webhookPartialSegments.optional(),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'WebhookSettingsRequest' });
export type WebhookSettingsRequest = z.infer<typeof webhookSettingsRequest>;

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

const wholeNumber = z
  .string()
  .regex(/^[0-9]{1,15}$/, 'must be a whole number')
  .transform(Number);

export const listDeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
  meeting_id: wholeNumber.optional(),
  limit: wholeNumber
    .pipe(z.number().min(1, 'must be at least 1').max(1000, 'must be at most 1000'))
    .default(100),
  offset: wholeNumber.default(0),
});

export const deliveryIdParams = z.object({ id: z.uuid({ error: 'must be a delivery id (UUID)' }) });
