import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import type { DeliveryRecord } from './outbox.js';
import type { UserWebhookSettings } from './settings-store.js';
import type { deliverySchema, webhookSettingsSchema } from './wire.js';

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
