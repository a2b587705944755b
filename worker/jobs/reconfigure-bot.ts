import type { ReconfigureBotPayload } from '../../shared/queues.js';
import { sendBotCommand } from '../bot-commands.js';
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
