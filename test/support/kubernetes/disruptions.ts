import { badRequest, type Status, successStatus } from './api-errors.js';
import { checkDisruptionBudgets } from './disruption-budgets.js';
import type { Nodes } from './nodes.js';
import type { ObjectStore } from './object-store.js';
import { decode, EvictionSchema, type Pod } from './objects.js';
import { setCondition } from './pod-status.js';
import { asPod, isTerminal } from './pod-strategy.js';
import type { PodWorkers } from './pod-workers.js';
import type { Registry } from './registry.js';

/**
 * The ways a cluster ends a pod on its own, each marking the pod with the DisruptionTarget
 * condition and the reason Kubernetes gives it before the pod goes
 * (https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-conditions):
 * the Eviction API (EvictionByEvictionAPI), preemption (PreemptionByScheduler), a lost node's
 * taint (DeletionByTaintManager) and node-pressure eviction by the kubelet (TerminationByKubelet).
 */
export class Disruptions {
  constructor(
    private readonly store: ObjectStore,
    private readonly pods: Registry,
    private readonly nodes: Nodes,
    private readonly workers: PodWorkers,
  ) {}

  private mark(pod: Pod, reason: string, message: string): void {
    this.pods.mutate(pod.metadata.namespace, pod.metadata.name ?? '', pod.metadata.uid ?? '', (object) =>
      setCondition(asPod(object), { type: 'DisruptionTarget', status: 'True', reason, message }),
    );
  }

  /**
   * POST pods/{name}/eviction (policy/v1 Eviction): checked against the pod's disruption budget
   * unless the pod has ended, is Pending or is already being deleted; then marked and deleted
   * gracefully with the eviction's delete options. Answered 201 with a Success Status.
   */
  evict(namespace: string, name: string, body: unknown): Status {
    const pod = asPod(this.pods.get(namespace, name));
    const eviction = decode(EvictionSchema, 'Eviction', body);
    if (eviction.metadata.name && eviction.metadata.name !== name)
      throw badRequest(`name in URL does not match name in Eviction object`);
    const budgetApplies =
      !isTerminal(pod) && pod.status?.phase !== 'Pending' && !pod.metadata.deletionTimestamp;
    if (budgetApplies) checkDisruptionBudgets(this.store, pod);
    if (!pod.metadata.deletionTimestamp) this.mark(pod, 'EvictionByEvictionAPI', 'Eviction API: evicting');
    this.pods.delete(namespace, name, eviction.deleteOptions ?? {});
    return successStatus(201);
  }

  /** The scheduler preempts the pod for one of higher priority: marked, then deleted with the pod's own grace. */
  preempt(namespace: string, name: string): void {
    const pod = asPod(this.pods.get(namespace, name));
    this.mark(
      pod,
      'PreemptionByScheduler',
      'default-scheduler: preempting to accommodate a higher priority pod',
    );
    this.pods.delete(namespace, name, {});
  }

  /**
   * Node-pressure eviction (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/):
   * the kubelet kills the container and the pod stays, Failed with reason Evicted.
   */
  async kubeletEvict(namespace: string, name: string, message: string, graceSeconds: number): Promise<void> {
    const pod = asPod(this.pods.get(namespace, name));
    if (!pod.spec.nodeName)
      throw new Error(`pod ${namespace}/${name} is on no node: no kubelet can evict it`);
    this.mark(pod, 'TerminationByKubelet', message);
    await this.workers.evict(pod.metadata.uid ?? '', message, graceSeconds);
  }

  /**
   * The node is lost: its kubelet stops answering (its containers die with it), the node lifecycle
   * controller marks it unreachable and its pods not Ready, and the taint manager marks and deletes
   * them (in a cluster after their 300 s toleration; here at once). Nobody confirms the deletion
   * while the node is gone, so the pods stay Terminating until the node object is removed and the
   * pod garbage collector force-deletes them: `removeNode` (the default) does that too.
   */
  async loseNode(node: string, removeNode: boolean): Promise<void> {
    this.nodes.markUnreachable(node);
    await this.workers.detachNode(node);
    const onNode = this.store
      .list('pods')
      .map(asPod)
      .filter((pod) => pod.spec.nodeName === node);
    for (const pod of onNode) {
      const namespace = pod.metadata.namespace ?? '';
      const name = pod.metadata.name ?? '';
      this.pods.mutate(namespace, name, pod.metadata.uid ?? '', (object) => {
        const target = asPod(object);
        setCondition(target, { type: 'Ready', status: 'False' });
        if (!isTerminal(target))
          setCondition(target, {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'DeletionByTaintManager',
            message: 'Taint manager: deleting due to NoExecute taint',
          });
      });
      this.deleteQuietly(namespace, name, pod.metadata.uid ?? '', undefined);
    }
    if (!removeNode) return;
    this.nodes.remove(node);
    for (const pod of onNode)
      this.deleteQuietly(pod.metadata.namespace ?? '', pod.metadata.name ?? '', pod.metadata.uid ?? '', 0);
  }

  private deleteQuietly(namespace: string, name: string, uid: string, grace: number | undefined): void {
    try {
      this.pods.delete(namespace, name, {
        ...(grace !== undefined && { gracePeriodSeconds: grace }),
        preconditions: { uid },
      });
    } catch {
      // Already gone.
    }
  }
}
