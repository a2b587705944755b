import { sleep } from '../../shared/infra/async.js';
import type { CreateMeetingInput } from '../../simulator/client.js';
import type { Stack } from '../../test/support/stack.js';
import type { DockerRuntime } from '../../worker/runtime/docker-runtime.js';
import { sampleContainers } from './container-sampler.js';
import { startFloor } from './floor-container.js';
import { machineCoresSince, machineCpuTicks } from './machine-cpu.js';

export interface FloorResult {
  inCall: number;
  memoryMiB: number[];
  cpuCores: number[];
  machineCores: number;
}

export interface FloorRoundOptions {
  platform: string;
  /** How long the meetings last (s): the floors are sampled until 5 s before their end. */
  seconds: number;
  /** One meeting like the bots'. */
  scenario: () => CreateMeetingInput;
}

/** N bare Chromiums, each in a meeting like the bots', sampled from all in the call to the end. */
export async function floorRound(
  stack: Stack,
  runtime: DockerRuntime,
  n: number,
  { platform, seconds, scenario }: FloorRoundOptions,
): Promise<FloorResult> {
  const createdAt = Date.now();
  const meetings = await Promise.all(
    Array.from({ length: n }, () => stack.simulator.createMeeting(scenario())),
  );
  const started = await Promise.allSettled(
    meetings.map((meeting) =>
      startFloor(stack.docker, {
        image: process.env.BOT_IMAGE ?? 'meetbot/bot:latest',
        meetingUrl: meeting.url,
        platform,
        sandbox: process.env.BOT_CHROMIUM_SANDBOX !== 'off',
        joinTimeoutMs: 300_000,
      }),
    ),
  );
  const containers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  try {
    const machineStart = machineCpuTicks();
    const sampler = sampleContainers(stack, runtime, async () => containers.map((c) => c.id), false);
    await sleep(Math.max(10_000, createdAt + (seconds - 5) * 1000 - Date.now()));
    sampler.stop();
    return {
      inCall: containers.length,
      memoryMiB: sampler.memoryMiB,
      cpuCores: sampler.cpuCores,
      machineCores: machineCoresSince(machineStart),
    };
  } finally {
    await Promise.all(containers.map((container) => container.remove({ force: true }).catch(() => {})));
  }
}
