import { z } from 'zod';
import { MAX_DB_INTEGER } from '../../../shared/infra/knex.js';
import { DELIVERY_STATUSES } from '../../../shared/webhooks/outbox.js';
import type { UserWebhookChange } from '../../../shared/webhooks/settings-store.js';
import { type PageSizes, pageQueryShape, wholeNumberParam } from '../query-params.js';

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

/** The request body in the service's terms. */
export function webhookChangeOf(body: WebhookSettingsRequest): UserWebhookChange & { url: string | null } {
  return {
    url: body.webhook_url,
    secret: body.webhook_secret,
    partialSegments: body.webhook_partial_segments,
  };
}

export function listDeliveriesQuery(sizes: PageSizes) {
  return z.object({
    status: z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
    meeting_id: wholeNumberParam(1, MAX_DB_INTEGER).optional(),
    ...pageQueryShape(sizes),
  });
}

export const deliveryIdParams = z.object({ id: z.uuid({ error: 'must be a delivery id (UUID)' }) });
