import type { Readable } from 'node:stream';
import { badRequest } from './api-errors.js';
import type { Kubelet } from './kubelet.js';
import type { Pod } from './objects.js';
import type { Query } from './query-parameters.js';

/**
 * GET pods/{name}/log: the container's output as text/plain, from its kubelet, with the checks
 * the API server and kubelet make first (the container named must be the pod's; a pod on no node,
 * or a container that has not started yet, has no log: 400 Bad Request with their words).
 */
export async function podLog(kubelet: Kubelet, pod: Pod, query: Query): Promise<string | Readable> {
  const name = pod.metadata.name ?? '';
  const containers = (pod.spec.containers ?? []).map((container) => container.name);
  const container = query.container ?? (containers.length === 1 ? containers[0] : undefined);
  if (container === undefined)
    throw badRequest(
      `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`,
    );
  if (!containers.includes(container))
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  if (!pod.spec.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const status = pod.status?.containerStatuses?.find((entry) => entry.name === container);
  if (query.previous) {
    if (!status?.lastState?.terminated)
      throw badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  } else if (!status || (status.state?.waiting && status.restartCount === 0)) {
    const reason = status?.state?.waiting?.reason ?? 'ContainerCreating';
    throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ${reason}`);
  }
  return kubelet.logs(pod, {
    ...(query.tailLines !== undefined && { tailLines: query.tailLines }),
    ...(query.previous !== undefined && { previous: query.previous }),
    ...(query.timestamps !== undefined && { timestamps: query.timestamps }),
    ...(query.sinceSeconds !== undefined && { sinceSeconds: query.sinceSeconds }),
    ...(query.limitBytes !== undefined && { limitBytes: query.limitBytes }),
    ...(query.follow !== undefined && { follow: query.follow }),
  });
}

/** The last `lines` lines of a text (all of it when undefined), as `tailLines` cuts a log. */
export function tail(text: string, lines: number | undefined): string {
  if (lines === undefined) return text;
  if (lines <= 0) return '';
  const parts = text.split('\n');
  const trailing = parts.at(-1) === '' ? parts.pop() : undefined;
  return parts.slice(-lines).join('\n') + (trailing === '' ? '\n' : '');
}
