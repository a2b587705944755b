import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { PLATFORMS } from './platforms.js';

/**
 * Launches wait for a free bot slot on some worker; stop and reconfigure must never wait behind them,
 * so they travel on a queue of their own. Job names tell the worker which processor runs.
 */
export const LAUNCH_QUEUE = 'bot-launches';
export const CONTROL_QUEUE = 'bot-control';
/** Webhook deliveries: one job per delivery, only ever for the oldest pending one of its meeting. */
export const WEBHOOK_QUEUE = 'webhook-deliveries';

export const JobNames = {
  launchBot: 'launch-bot',
  stopBot: 'stop-bot',
  deliverWebhook: 'deliver-webhook',
} as const;
export type JobName = (typeof JobNames)[keyof typeof JobNames];

const meetingRef = {
  meetingId: z.number().int().positive(),
  userId: z.number().int().positive(),
  platform: z.enum(PLATFORMS),
  nativeMeetingId: z.string().min(1),
};

/** How every bot job names its meeting. */
export type JobMeetingRef = z.infer<z.ZodObject<typeof meetingRef>>;

export const launchBotPayload = z.object({
  ...meetingRef,
  /** Set on a relaunch after a lost host: which one (1, 2, ...), so each gets a job of its own. */
  relaunch: z.number().int().positive().optional(),
  /**
   * A scheduled bot's `join_at` (ms since epoch) this job launches it at. A moved bot gets a new
   * job; the old one finds another time on the meeting and does nothing.
   */
  joinAt: z.number().int().nonnegative().optional(),
  /**
   * Set on a retry after a refusal a retry can help (blocked_by_platform, meeting_unreachable): which
   * one (1, 2, ...), so each gets a job of its own, and when it is due (ms since epoch): the job
   * waits in Redis as a delayed job until then.
   */
  retry: z.number().int().positive().optional(),
  retryAt: z.number().int().nonnegative().optional(),
});
export type LaunchBotPayload = z.infer<typeof launchBotPayload>;

export const stopBotPayload = z.object({
  ...meetingRef,
  /** The container the meeting had when the stop was asked for (null if the bot had not started yet). */
  botContainerId: z.string().min(1).nullable(),
  requestedAt: z.iso.datetime(),
});
export type StopBotPayload = z.infer<typeof stopBotPayload>;

export const deliverWebhookPayload = z.object({
  deliveryId: z.uuid(),
  /** When the delivery's retry window opened (ms since epoch): a manual retry is a new job. */
  windowStartedAt: z.number().int().nonnegative(),
});
export type DeliverWebhookPayload = z.infer<typeof deliverWebhookPayload>;

/** The name of the worker's backoff strategy for webhook retries (see shared/webhooks/retry-schedule.ts). */
export const WEBHOOK_BACKOFF = 'webhook';

export const JobPayloadSchemas = {
  [JobNames.launchBot]: launchBotPayload,
  [JobNames.stopBot]: stopBotPayload,
  [JobNames.deliverWebhook]: deliverWebhookPayload,
} as const;

const keepFinishedJobs = {
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
} satisfies JobsOptions;

function launchJobId(payload: LaunchBotPayload): string {
  if (payload.relaunch) return `launch-${payload.meetingId}-relaunch-${payload.relaunch}`;
  if (payload.retry) return `launch-${payload.meetingId}-retry-${payload.retry}`;
  if (payload.joinAt !== undefined) return `launch-${payload.meetingId}-at-${payload.joinAt}`;
  return `launch-${payload.meetingId}`;
}

/** When a launch may start (ms since epoch): a retry's due time, a scheduled bot's join_at; else now. */
function launchDueAt(payload: LaunchBotPayload): number | undefined {
  return payload.retry ? payload.retryAt : payload.joinAt;
}

/** Default options per job type; job ids make a second enqueue of the same work a no-op. */
export const JobOptions = {
  [JobNames.launchBot]: (payload: LaunchBotPayload): JobsOptions => {
    const dueAt = launchDueAt(payload);
    return {
      ...keepFinishedJobs,
      jobId: launchJobId(payload),
      // A scheduled launch or a retry waits in Redis as a delayed job until its time (across worker restarts).
      ...(dueAt !== undefined ? { delay: Math.max(0, dueAt - Date.now()) } : {}),
      attempts: 3,
      backoff: { type: 'exponential', delay: 2000 },
    };
  },
  [JobNames.stopBot]: (payload: StopBotPayload): JobsOptions => ({
    ...keepFinishedJobs,
    jobId: `stop-${payload.meetingId}`,
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
    priority: 1,
  }),
  [JobNames.deliverWebhook]: (payload: DeliverWebhookPayload): JobsOptions => ({
    // Removed once done so the same delivery can be queued again when its turn comes; the
    // delivery row (not the job) says whether it went out. Failed jobs stay for Bull Board.
    removeOnComplete: true,
    removeOnFail: keepFinishedJobs.removeOnFail,
    jobId: `delivery-${payload.deliveryId}-${payload.windowStartedAt}`,
    // The retry window (WEBHOOK_RETRY_WINDOW_SECONDS) decides when to give up, not a count.
    attempts: 100_000,
    backoff: { type: WEBHOOK_BACKOFF },
  }),
} as const;
