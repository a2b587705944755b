import { type Job, UnrecoverableError } from 'bullmq';
import type { z } from 'zod';

/** Payloads are validated again when dequeued: a job that can never run fails at once, without retries. */
export function payloadOf<Schema extends z.ZodType>(schema: Schema, job: Job): z.infer<Schema> {
  const parsed = schema.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(`invalid ${job.name} payload: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
