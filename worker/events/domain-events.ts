import type { ChatEvents } from '../../shared/chat/events.js';
import type { MeetingEvents } from '../../shared/meetings/events.js';
import type { ParticipantEvents } from '../../shared/participants/events.js';
import type { RecordingEvents } from '../../shared/recordings/events.js';
import type { TranscriptEvents } from '../../shared/transcripts/events.js';
import { webhookOutbox } from '../../shared/webhooks/record-events.js';
import { expireAccountOnSignInExpired } from '../accounts/bot-account-expiry.js';

/**
 * The composition root of the worker's domain events: every change the worker writes (a meeting's
 * status, transcript segments, a finished recording, chat messages, participant events) is told to the webhook outbox inside the
 * transaction that makes it, so its webhook event commits with it or not at all. The features
 * declare their events (shared/<feature>/events.ts) and never import webhooks themselves. A signed-in
 * bot's `sign_in_expired` also takes its bot account out of the pool, in the same transaction.
 */
export const domainEvents: MeetingEvents &
  TranscriptEvents &
  RecordingEvents &
  ChatEvents &
  ParticipantEvents = {
  ...webhookOutbox,
  async meetingStatusChanged(trx, change) {
    await webhookOutbox.meetingStatusChanged(trx, change);
    await expireAccountOnSignInExpired(trx, change, webhookOutbox);
  },
};
