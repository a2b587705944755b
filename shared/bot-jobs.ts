import {
  JobNames,
  JobOptions,
  type BotsQueue,
  type LaunchBotPayload,
  type ReconfigureBotPayload,
  type StopBotPayload,
} from './queues.js';

/** What the API asks of the workers. An interface so unit tests can pass a fake. */
export interface BotJobs {
  launch(payload: LaunchBotPayload): Promise<void>;
  stop(payload: StopBotPayload): Promise<void>;
  reconfigure(payload: ReconfigureBotPayload): Promise<void>;
}

export function bullBotJobs(queue: BotsQueue): BotJobs {
  return {
    async launch(payload) {
      await queue.add(JobNames.launchBot, payload, JobOptions[JobNames.launchBot](payload));
    },
    async stop(payload) {
      await queue.add(JobNames.stopBot, payload, JobOptions[JobNames.stopBot](payload));
    },
    async reconfigure(payload) {
      await queue.add(JobNames.reconfigureBot, payload, JobOptions[JobNames.reconfigureBot](payload));
    },
  };
}
