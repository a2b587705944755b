import { withTimeout } from '../infra/async.js';
import {
  JobNames,
  JobOptions,
  type BotQueues,
  type LaunchBotPayload,
  type ReconfigureBotPayload,
  type StopBotPayload,
} from '../contract/jobs.js';

/** What the API asks of the workers. An interface so unit tests can pass a fake. */
export interface BotJobs {
  launch(payload: LaunchBotPayload): Promise<void>;
  stop(payload: StopBotPayload): Promise<void>;
  reconfigure(payload: ReconfigureBotPayload): Promise<void>;
}

/** An enqueue that hasn't reached Redis by then won't: answer the request instead of hanging. */
const ENQUEUE_TIMEOUT_MS = 5000;

export function bullBotJobs(queues: BotQueues): BotJobs {
  return {
    async launch(payload) {
      const options = JobOptions[JobNames.launchBot](payload);
      await withTimeout(
        queues.launch.add(JobNames.launchBot, payload, options),
        ENQUEUE_TIMEOUT_MS,
        'enqueue',
      );
    },
    async stop(payload) {
      const options = JobOptions[JobNames.stopBot](payload);
      await withTimeout(
        queues.control.add(JobNames.stopBot, payload, options),
        ENQUEUE_TIMEOUT_MS,
        'enqueue',
      );
    },
    async reconfigure(payload) {
      const options = JobOptions[JobNames.reconfigureBot](payload);
      await withTimeout(
        queues.control.add(JobNames.reconfigureBot, payload, options),
        ENQUEUE_TIMEOUT_MS,
        'enqueue',
      );
    },
  };
}
