import type { JobsOptions, Queue } from 'bullmq';
import { JobNames, JobOptions, type LaunchBotPayload, type StopBotPayload } from '../contract/jobs.js';
import { withTimeout } from '../infra/async.js';
import type { BotQueues } from '../infra/queues.js';

/** What the API asks of the workers. An interface so unit tests can pass a fake. */
export interface BotJobs {
  launch(payload: LaunchBotPayload): Promise<void>;
  stop(payload: StopBotPayload): Promise<void>;
}

/** An enqueue that hasn't reached Redis by then won't: answer the request instead of hanging. */
const ENQUEUE_TIMEOUT_MS = 5000;

async function enqueue(queue: Queue, name: string, payload: object, options: JobsOptions): Promise<void> {
  await withTimeout(queue.add(name, payload, options), ENQUEUE_TIMEOUT_MS, 'enqueue');
}

export function bullBotJobs(queues: BotQueues): BotJobs {
  return {
    launch: (payload) =>
      enqueue(queues.launch, JobNames.launchBot, payload, JobOptions[JobNames.launchBot](payload)),
    stop: (payload) =>
      enqueue(queues.control, JobNames.stopBot, payload, JobOptions[JobNames.stopBot](payload)),
  };
}
