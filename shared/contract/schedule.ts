/**
 * Scheduled bots (POST /bots `join_at`): the reasons their status history records, which the
 * webhook outbox also turns into `bot.scheduled` and `bot.schedule_failed` events.
 */
export const ScheduleReasons = {
  /** The meeting was created `requested` with a `join_at`: the bot waits for its time. */
  scheduled: 'bot_scheduled',
  /** The waiting bot's `join_at` was moved (status stays `requested`). */
  moved: 'schedule_moved',
  /** The waiting bot was cancelled before it launched (status `completed`, no container started). */
  cancelled: 'schedule_cancelled',
  /** At `join_at` the user's concurrent-bot limit was full: the meeting is `failed`. */
  limitFull: 'concurrent_limit_reached',
} as const;
