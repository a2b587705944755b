import { UnrecoverableError } from 'bullmq';
import type { BotCommands } from '../../shared/bots/command-channel.js';
import type { StopBotPayload } from '../../shared/contract/jobs.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import { sleep } from '../../shared/infra/async.js';
import type { Config } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { deploymentLabels } from '../runtime/bot-launch-spec.js';
import { type BotRuntime, Labels } from '../runtime/bot-runtime.js';
import { meetingNamedBy } from './job-meeting.js';

/** What a stop uses: the meeting's row, the bot's command stream and this engine's containers. */
export interface StopDeps {
  /** QUEUE_PREFIX, BOT_STOP_GRACE_SECONDS and the deployment's container labels. */
  config: Config;
  db: Knex;
  commands: Pick<BotCommands, 'send'>;
  runtime: Pick<BotRuntime, 'list' | 'inspect' | 'stop'>;
  log: Logger;
}

/**
 * Tells the bot to leave (through its durable command stream, so it works whichever worker runs
 * this and even if the bot is still starting), gives it the grace period to leave and flush its last
 * segments, then stops and removes a container still running here. Containers on other hosts are
 * left to their own worker's reconciler, which enforces the same grace.
 */
export async function stopBot(deps: StopDeps, payload: StopBotPayload): Promise<void> {
  // The API ends the meeting before it queues the stop: a stop for a meeting still going was not its.
  const meeting = await meetingNamedBy(deps.db, payload);
  if (!meeting) throw new UnrecoverableError(`meeting ${payload.meetingId} not found: stop refused`);
  if (!isTerminal(meeting.status)) {
    throw new UnrecoverableError(
      `meeting ${payload.meetingId} is ${meeting.status}, not stopped: stop refused`,
    );
  }
  await deps.commands.send(payload.meetingId, {
    type: 'leave',
    reason: 'stopped',
    issuedAt: new Date().toISOString(),
  });
  const containers = await deps.runtime.list({
    ...deploymentLabels(deps.config),
    [Labels.meetingId]: String(payload.meetingId),
  });
  await Promise.all(
    containers
      .filter((container) => container.running)
      .map(async (container) => {
        if (await exitsWithin(deps, container.id, deps.config.BOT_STOP_GRACE_SECONDS * 1000)) return;
        deps.log.warn(
          { meetingId: payload.meetingId },
          'bot did not leave within the grace period; stopping its container',
        );
        await deps.runtime.stop(container.id, FORCE_STOP_SECONDS);
      }),
  );
  // The exit handler records the outcome and removes the container.
}

/** After the grace period: SIGTERM (the bot leaves at once), then SIGKILL after this long. */
const FORCE_STOP_SECONDS = 10;

async function exitsWithin(deps: StopDeps, containerId: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const info = await deps.runtime.inspect(containerId);
    if (!info?.running) return true;
    if (Date.now() >= deadline) return false;
    await sleep(500);
  }
}
