import { allocatableOf, type Nodes, type Taint, taintsOf } from './nodes.js';
import type { ObjectStore } from './object-store.js';
import type { Node, Pod } from './objects.js';
import { conditionOf, setCondition } from './pod-status.js';
import { asPod, isTerminal } from './pod-strategy.js';
import { cpuMillicores, wholeUnits } from './quantity.js';
import type { Registry } from './registry.js';

/**
 * The default scheduler, as far as placing by resources goes
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/kube-scheduler/): a pending pod goes to a
 * node that is schedulable, whose taints it tolerates, whose labels match its nodeSelector, and
 * whose allocatable CPU, memory and pod count still fit the pod's requests beside the requests of
 * the pods already bound there and not ended (terminating pods still count). Binding sets
 * spec.nodeName and PodScheduled=True. A pod no node takes stays Pending with PodScheduled=False,
 * reason Unschedulable and the scheduler's message (`0/2 nodes are available: 2 Insufficient
 * memory.`), and is tried again whenever capacity frees or nodes change. Nodes are tried in name
 * order (the real scheduler scores them; here the first that fits wins).
 */
export const SCHEDULER_NAME = 'default-scheduler';

interface Requests {
  cpuMillicores: number;
  memoryBytes: number;
}

export function requestsOf(pod: Pod): Requests {
  let cpu = 0;
  let memory = 0;
  for (const container of pod.spec.containers ?? []) {
    const requests = container.resources?.requests ?? {};
    if (requests.cpu !== undefined) cpu += cpuMillicores(requests.cpu);
    if (requests.memory !== undefined) memory += wholeUnits(requests.memory);
  }
  return { cpuMillicores: cpu, memoryBytes: memory };
}

function tolerates(pod: Pod, taint: Taint): boolean {
  return (pod.spec.tolerations ?? []).some((toleration) => {
    if (toleration.effect && toleration.effect !== taint.effect) return false;
    if (toleration.operator === 'Exists') return !toleration.key || toleration.key === taint.key;
    return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '');
  });
}

export class Scheduler {
  private pending: NodeJS.Immediate | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly pods: Registry,
    private readonly nodes: Nodes,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((event) => {
      const relevant =
        event.resource === 'nodes' ||
        (event.resource === 'pods' &&
          (event.type !== 'MODIFIED' ||
            !asPod(event.object).spec.nodeName ||
            isTerminal(asPod(event.object))));
      if (relevant) this.soon();
    });
    this.soon();
  }

  close(): void {
    this.unsubscribe?.();
    if (this.pending) clearImmediate(this.pending);
  }

  /** Scheduling runs apart from the write that asked for it, as the real scheduler watches the API. */
  private soon(): void {
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      this.scheduleAll();
    });
  }

  private scheduleAll(): void {
    const all = this.store.list('pods').map(asPod);
    const queue = all
      .filter(
        (pod) =>
          !pod.spec.nodeName &&
          !pod.metadata.deletionTimestamp &&
          !isTerminal(pod) &&
          (pod.spec.schedulerName ?? SCHEDULER_NAME) === SCHEDULER_NAME,
      )
      .sort(
        (a, b) =>
          (b.spec.priority ?? 0) - (a.spec.priority ?? 0) ||
          Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion),
      );
    if (!queue.length) return;
    const bound = all.filter((pod) => pod.spec.nodeName && !isTerminal(pod));
    for (const pod of queue) {
      const verdicts = this.nodes.list().map((node) => ({ node, reasons: this.misfits(pod, node, bound) }));
      const fit = verdicts.find((verdict) => !verdict.reasons.length);
      if (fit) {
        const name = fit.node.metadata.name ?? '';
        const written = this.pods.mutate(
          pod.metadata.namespace,
          pod.metadata.name ?? '',
          pod.metadata.uid ?? '',
          (object) => {
            const target = asPod(object);
            target.spec.nodeName = name;
            setCondition(target, { type: 'PodScheduled', status: 'True' });
          },
        );
        if (written) bound.push(asPod(written));
      } else {
        this.markUnschedulable(pod, unschedulableMessage(verdicts.map((verdict) => verdict.reasons)));
      }
    }
  }

  /** Why a node can't take the pod, in the scheduler's words; none when it can. */
  private misfits(pod: Pod, node: Node, bound: Pod[]): string[] {
    if ((node.spec as { unschedulable?: boolean }).unschedulable) return ['node(s) were unschedulable'];
    const untolerated = taintsOf(node).find(
      (taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerates(pod, taint),
    );
    if (untolerated)
      return [`node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ''}}`];
    const labels = node.metadata.labels ?? {};
    if (Object.entries(pod.spec.nodeSelector ?? {}).some(([key, value]) => labels[key] !== value))
      return ["node(s) didn't match Pod's node affinity/selector"];
    const allocatable = allocatableOf(node);
    const here = bound.filter((other) => other.spec.nodeName === node.metadata.name);
    const used = here.map(requestsOf).reduce(
      (sum, requests) => ({
        cpuMillicores: sum.cpuMillicores + requests.cpuMillicores,
        memoryBytes: sum.memoryBytes + requests.memoryBytes,
      }),
      { cpuMillicores: 0, memoryBytes: 0 },
    );
    const wanted = requestsOf(pod);
    const reasons: string[] = [];
    if (here.length + 1 > allocatable.pods) reasons.push('Too many pods');
    if (wanted.cpuMillicores > 0 && used.cpuMillicores + wanted.cpuMillicores > allocatable.cpuMillicores)
      reasons.push('Insufficient cpu');
    if (wanted.memoryBytes > 0 && used.memoryBytes + wanted.memoryBytes > allocatable.memoryBytes)
      reasons.push('Insufficient memory');
    return reasons;
  }

  private markUnschedulable(pod: Pod, message: string): void {
    const scheduled = conditionOf(pod, 'PodScheduled');
    if (scheduled?.status === 'False' && scheduled.message === message) return;
    this.pods.mutate(pod.metadata.namespace, pod.metadata.name ?? '', pod.metadata.uid ?? '', (object) =>
      setCondition(asPod(object), {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message,
      }),
    );
  }
}

/**
 * The FailedScheduling message: how many nodes, then each reason with the count of nodes it ruled
 * out, sorted as text, as the scheduler's FitError words it.
 */
export function unschedulableMessage(reasonsPerNode: string[][]): string {
  if (!reasonsPerNode.length) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  for (const reasons of reasonsPerNode)
    for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const histogram = [...counts.entries()].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${reasonsPerNode.length} nodes are available: ${histogram.join(', ')}.`;
}
