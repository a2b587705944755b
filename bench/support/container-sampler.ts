import type { Stack } from '../../test/support/stack.js';
import type { DockerRuntime } from '../../worker/runtime/docker-runtime.js';
import { sampleContainer } from './container-processes.js';

const SAMPLE_EVERY_MS = 5000;

/**
 * Samples containers every SAMPLE_EVERY_MS: memory as `docker stats` shows it, CPU between one
 * sample and the next, and (with `pss`) each one's processes' PSS. `stop()` ends it.
 */
export function sampleContainers(
  stack: Stack,
  runtime: DockerRuntime,
  containerIds: () => Promise<string[]>,
  pss: boolean,
) {
  const memoryMiB: number[] = [];
  const pssMiB: number[] = [];
  const cpuCores: number[] = [];
  const previous = new Map<string, { cpu: number; system: number }>();
  const timer = setInterval(async () => {
    for (const id of await containerIds().catch(() => [])) {
      const usage = await runtime.usage(id).catch(() => undefined);
      if (!usage) continue;
      memoryMiB.push(usage.memoryBytes / 1024 / 1024);
      const processes = pss ? await sampleContainer(stack.docker, id).catch(() => []) : [];
      if (processes.length > 0) pssMiB.push(processes.reduce((sum, p) => sum + p.pssKiB, 0) / 1024);
      const last = previous.get(id);
      previous.set(id, { cpu: usage.cpuNanos, system: usage.systemCpuNanos });
      if (last && usage.systemCpuNanos > last.system) {
        cpuCores.push(
          ((usage.cpuNanos - last.cpu) / (usage.systemCpuNanos - last.system)) * usage.onlineCpus,
        );
      }
    }
  }, SAMPLE_EVERY_MS);
  return { memoryMiB, pssMiB, cpuCores, stop: () => clearInterval(timer) };
}
