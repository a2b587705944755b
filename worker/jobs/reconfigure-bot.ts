import type { ReconfigureBotPayload } from '../../shared/contract/jobs.js';
import { sendBotCommand } from '../../shared/contract/command-channel.js';
import type { WorkerDeps } from '../worker-deps.js';

/** Passes new settings to the running bot through its command stream. */
export async function reconfigureBot(deps: WorkerDeps, payload: ReconfigureBotPayload): Promise<void> {
  await sendBotCommand(deps.redis, deps.config.QUEUE_PREFIX, payload.meetingId, {
    type: 'reconfigure',
    ...(payload.language !== undefined && { language: payload.language }),
    ...(payload.task !== undefined && { task: payload.task }),
    ...(payload.botName !== undefined && { botName: payload.botName }),
    issuedAt: payload.requestedAt,
  });
}
