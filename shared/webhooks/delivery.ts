import { UnrecoverableError } from 'bullmq';
import type { DeliverWebhookPayload } from '../contract/jobs.js';
import { outboundAddressPolicyOf } from '../infra/outbound-address-policy.js';
import type { WebhookDeps } from './deps.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { findDelivery, hasEarlierPending, markDelivered, recordFailedAttempt } from './outbox.js';
import { webhookBody } from './payloads.js';
import { isLastAttempt, retryDelayMs } from './retry-schedule.js';
import { sendWebhook } from './sender.js';
import { signingSecretFor } from './targets.js';

export type DeliveryOutcome = 'delivered' | 'not_pending' | 'waiting_for_earlier';

/**
 * Sends one delivery, if it is still pending and its meeting's turn is its own. Success or giving up
 * lets the meeting's next delivery go. A failure inside the retry window throws, and BullMQ retries
 * after the backoff; the last one is recorded as failed (visible to the user) and fails the job.
 * At-least-once: the receiver may see a delivery twice if a worker dies between its answer and the
 * commit, so receivers de-duplicate on the delivery id.
 */
export async function deliverWebhook(
  deps: WebhookDeps,
  dispatcher: WebhookDispatcher,
  payload: DeliverWebhookPayload,
  failedAttemptsSoFar: number,
): Promise<DeliveryOutcome> {
  const delivery = await findDelivery(deps.db, payload.deliveryId);
  if (delivery?.status !== 'pending') return 'not_pending';
  // Queued again by the dispatcher once the earlier one is done.
  if (await hasEarlierPending(deps.db, delivery)) return 'waiting_for_earlier';

  const secret = await signingSecretFor(deps.db, delivery.meetingId);
  const result = secret
    ? await sendWebhook(
        { url: delivery.url, id: delivery.id, type: delivery.eventType, body: webhookBody(delivery), secret },
        {
          policy: outboundAddressPolicyOf(deps.config),
          timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
        },
      )
    : ({ ok: false, statusCode: null, error: 'no signing secret is set', permanent: true } as const);
  const log = deps.log.child({
    deliveryId: delivery.id,
    meetingId: delivery.meetingId,
    type: delivery.eventType,
  });

  if (result.ok) {
    await markDelivered(deps.db, delivery.id, { statusCode: result.statusCode, error: null });
    log.debug({ statusCode: result.statusCode }, 'webhook delivered');
    await dispatcher.kick([delivery.meetingId]);
    deps.onAttempt?.('delivered');
    return 'delivered';
  }

  const nextDelay = retryDelayMs(failedAttemptsSoFar + 1, deps.config);
  const final = result.permanent || isLastAttempt(delivery.windowStartedAt, nextDelay, deps.config);
  await recordFailedAttempt(
    deps.db,
    delivery.id,
    { statusCode: result.statusCode, error: result.error },
    final,
  );
  if (final) {
    log.warn({ error: result.error, attempts: delivery.attempts + 1 }, 'webhook delivery given up');
    await dispatcher.kick([delivery.meetingId]);
    deps.onAttempt?.('given_up');
    throw new UnrecoverableError(`delivery given up: ${result.error}`);
  }
  log.info({ error: result.error, retryInMs: nextDelay }, 'webhook delivery failed; will retry');
  deps.onAttempt?.('retrying');
  throw new Error(result.error);
}
