import { type ContainerExit, ContainerWaiting, type Kubelet, type StartedContainer } from './kubelet.js';
import type { Nodes } from './nodes.js';
import type { ObjectStore } from './object-store.js';
import type { Pod } from './objects.js';
import {
  markAccepted,
  markEvicted,
  markRestarting,
  markRunning,
  markTerminated,
  markWaiting,
  type TerminatedState,
} from './pod-status.js';
import { asPod } from './pod-strategy.js';
import type { Registry } from './registry.js';

/**
 * The kubelet's pod lifecycle over whichever Kubelet runs the containers
 * (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/): a pod bound to a reachable
 * node is accepted (ContainerCreating), started (Running), and when its container ends either
 * restarted after a back-off (restartPolicy Always, or OnFailure after a failure) or ended
 * (Succeeded on exit 0, Failed otherwise). A pod being deleted gets SIGTERM, SIGKILL once its grace
 * is over, a terminal phase, and is then removed by a final delete with no grace (as the kubelet
 * does). A pod the kubelet can't start yet waits with the reason and is tried again.
 */
export interface PodWorkerOptions {
  /** How soon a pod that can't start yet (a missing Secret…) is tried again. */
  retryMs: number;
  /** The first restart back-off; it doubles up to five minutes (the kubelet's is 10 s). */
  restartBackOffMs: number;
}

/** The kubelet never gives a container less than this to stop (minimumGracePeriodInSeconds). */
const MINIMUM_GRACE_SECONDS = 2;
const MAX_BACK_OFF_MS = 300_000;

interface Worker {
  uid: string;
  namespace: string;
  name: string;
  attempt: number;
  container?: StartedContainer;
  starting?: Promise<void>;
  retryTimer?: NodeJS.Timeout;
  restartTimer?: NodeJS.Timeout;
  stopping?: Promise<void>;
  stopGrace?: number;
  /** Set by a node-pressure eviction: the message the pod ends with. */
  evicted?: string;
  /** Its node is lost: nothing more is reported for it. */
  detached: boolean;
  /** Its container ended for good. */
  done: boolean;
  /** Exits of containers not yet known as started (a command that ends at once). */
  earlyExits: Map<string, ContainerExit>;
  recordedExits: Set<string>;
}

export class PodWorkers {
  private readonly workers = new Map<string, Worker>();
  private readonly cleanups = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly pods: Registry,
    private readonly nodes: Nodes,
    private readonly kubelet: Kubelet,
    private readonly options: PodWorkerOptions,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((event) => {
      if (event.resource === 'pods') {
        const pod = asPod(event.object);
        if (event.type === 'DELETED') this.forget(pod.metadata.uid ?? '');
        else
          setImmediate(() =>
            this.sync(pod.metadata.namespace ?? '', pod.metadata.name ?? '', pod.metadata.uid ?? ''),
          );
      } else if (event.resource === 'secrets' && event.type !== 'DELETED') {
        // A Secret a waiting pod needs may have come: the kubelet's secret manager notices it.
        for (const worker of this.workers.values())
          if (worker.namespace === event.object.metadata.namespace && worker.retryTimer)
            this.retryNow(worker);
      }
    });
    for (const pod of this.store.list('pods').map(asPod))
      this.sync(pod.metadata.namespace ?? '', pod.metadata.name ?? '', pod.metadata.uid ?? '');
  }

  /** Stops watching and waits for the containers of removed pods to be cleaned up. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    for (const worker of this.workers.values()) this.clearTimers(worker);
    await Promise.allSettled([...this.cleanups]);
  }

  /** The pod's current object, while it is still the one this worker runs. */
  private current(worker: Worker): Pod | undefined {
    const object = this.store.get('pods', worker.namespace, worker.name);
    return object && object.metadata.uid === worker.uid ? asPod(object) : undefined;
  }

  private write(worker: Worker, change: (pod: Pod) => void): void {
    if (worker.detached) return;
    this.pods.mutate(worker.namespace, worker.name, worker.uid, (object) => change(asPod(object)));
  }

  private sync(namespace: string, name: string, uid: string): void {
    if (this.closed) return;
    const object = this.store.get('pods', namespace, name);
    if (!object || object.metadata.uid !== uid) return;
    const pod = asPod(object);
    const node = pod.spec.nodeName;
    let worker = this.workers.get(uid);
    if (!worker) {
      if (!node || !this.nodes.isReachable(node)) return;
      worker = {
        uid,
        namespace,
        name,
        attempt: 0,
        detached: false,
        done: pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed',
        earlyExits: new Map(),
        recordedExits: new Set(),
      };
      this.workers.set(uid, worker);
      if (!worker.done && !pod.metadata.deletionTimestamp) {
        this.write(worker, (target) => markAccepted(target, this.nodes.address, this.nodes.address));
        this.launch(worker);
      }
    }
    const deletion = pod.metadata.deletionGracePeriodSeconds;
    if (pod.metadata.deletionTimestamp && deletion !== undefined) this.terminate(worker, deletion);
  }

  private launch(worker: Worker): void {
    worker.starting = this.startContainer(worker).finally(() => {
      worker.starting = undefined;
    });
  }

  private async startContainer(worker: Worker): Promise<void> {
    const pod = this.current(worker);
    if (!pod || worker.stopping || worker.detached || worker.evicted) return;
    let started: StartedContainer;
    try {
      started = await this.kubelet.start(pod, worker.attempt);
    } catch (error) {
      if (worker.stopping || worker.detached || !this.current(worker)) return;
      const waiting =
        error instanceof ContainerWaiting
          ? error
          : new ContainerWaiting('CreateContainerError', (error as Error).message);
      this.write(worker, (target) => markWaiting(target, waiting.reason, waiting.detail));
      worker.retryTimer = setTimeout(() => this.retryNow(worker), this.options.retryMs);
      return;
    }
    worker.container = started;
    this.write(worker, (target) =>
      markRunning(target, started.containerId, started.imageId, started.startedAt),
    );
    const early = worker.earlyExits.get(started.containerId);
    if (early) this.recordExit(worker, started.containerId, early);
  }

  private retryNow(worker: Worker): void {
    if (worker.retryTimer) clearTimeout(worker.retryTimer);
    worker.retryTimer = undefined;
    if (!worker.starting && !worker.container && !worker.done) this.launch(worker);
  }

  /** The Kubelet tells of a container that ended by itself. */
  exited(podUid: string, containerId: string, exit: ContainerExit): void {
    const worker = this.workers.get(podUid);
    if (!worker) return;
    if (worker.container?.containerId !== containerId) {
      worker.earlyExits.set(containerId, exit);
      return;
    }
    this.recordExit(worker, containerId, exit);
  }

  private recordExit(worker: Worker, containerId: string, exit: ContainerExit): void {
    if (worker.recordedExits.has(containerId) || worker.detached) return;
    worker.recordedExits.add(containerId);
    worker.earlyExits.delete(containerId);
    worker.container = undefined;
    const pod = this.current(worker);
    if (!pod) return;
    const terminated: TerminatedState = {
      exitCode: exit.exitCode,
      reason: exit.reason,
      ...(exit.message && { message: exit.message }),
      ...(exit.signal !== undefined && { signal: exit.signal }),
      ...(exit.startedAt && { startedAt: exit.startedAt }),
      finishedAt: exit.finishedAt,
      containerID: containerId,
    };
    const phase = exit.exitCode === 0 ? 'Succeeded' : 'Failed';
    if (worker.evicted) {
      const message = worker.evicted;
      worker.done = true;
      this.write(worker, (target) => {
        markTerminated(target, terminated, 'Failed');
        markEvicted(target, message);
      });
      return;
    }
    const policy = pod.spec.restartPolicy ?? 'Always';
    const restart =
      !worker.stopping &&
      !pod.metadata.deletionTimestamp &&
      (policy === 'Always' || (policy === 'OnFailure' && exit.exitCode !== 0));
    if (!restart) {
      worker.done = true;
      this.write(worker, (target) => markTerminated(target, terminated, phase));
      return;
    }
    const backOffMs = Math.min(MAX_BACK_OFF_MS, this.options.restartBackOffMs * 2 ** worker.attempt);
    worker.attempt += 1;
    this.write(worker, (target) => markRestarting(target, terminated, Math.round(backOffMs / 1000)));
    worker.restartTimer = setTimeout(() => {
      worker.restartTimer = undefined;
      this.launch(worker);
    }, backOffMs);
  }

  /**
   * Deletion with grace: SIGTERM, SIGKILL when the grace is over (never less than two seconds), the
   * container's end written with a terminal phase, then the kubelet's own delete with no grace,
   * which removes the object. A second delete with a shorter grace shortens the wait.
   */
  private terminate(worker: Worker, graceSeconds: number): void {
    const grace = Math.max(MINIMUM_GRACE_SECONDS, graceSeconds);
    if (worker.stopping) {
      const container = worker.container;
      if (worker.stopGrace !== undefined && grace < worker.stopGrace && container && !worker.detached) {
        worker.stopGrace = grace;
        void this.kubelet
          .stop(worker.uid, grace)
          .then((exit) => exit && this.recordExit(worker, container.containerId, exit))
          .catch(() => undefined);
      }
      return;
    }
    worker.stopGrace = grace;
    this.clearTimers(worker);
    worker.stopping = (async () => {
      await worker.starting?.catch(() => undefined);
      const container = worker.container;
      if (container && !worker.detached) {
        const exit = await this.kubelet.stop(worker.uid, grace).catch(() => undefined);
        if (exit) this.recordExit(worker, container.containerId, exit);
      }
      if (worker.detached || this.closed) return;
      if (!worker.done && this.current(worker)) {
        // Its container never ran (still waiting): the pod still ends in a terminal phase.
        worker.done = true;
        this.write(worker, (target) => {
          if (target.status) target.status.phase = 'Failed';
        });
      }
      try {
        this.pods.delete(worker.namespace, worker.name, {
          gracePeriodSeconds: 0,
          preconditions: { uid: worker.uid },
        });
      } catch {
        // Gone already, or another pod by that name now.
      }
    })();
  }

  /**
   * Node-pressure eviction by the kubelet: the container is stopped (killed at once by default, as
   * for a hard eviction threshold) and the pod ends Failed with reason Evicted; it is not deleted.
   */
  async evict(podUid: string, message: string, graceSeconds: number): Promise<void> {
    const worker = this.workers.get(podUid);
    if (!worker || worker.done) return;
    worker.evicted = message;
    this.clearTimers(worker);
    await worker.starting?.catch(() => undefined);
    const container = worker.container;
    if (container) {
      const exit = await this.kubelet.stop(worker.uid, graceSeconds).catch(() => undefined);
      if (exit) this.recordExit(worker, container.containerId, exit);
    } else {
      worker.done = true;
      this.write(worker, (target) => markEvicted(target, message));
    }
  }

  /** The node is lost: its containers are killed and its kubelet reports nothing more. */
  async detachNode(node: string): Promise<void> {
    const lost = [...this.workers.values()].filter((worker) => this.current(worker)?.spec.nodeName === node);
    await Promise.allSettled(
      lost.map(async (worker) => {
        worker.detached = true;
        this.clearTimers(worker);
        await worker.starting?.catch(() => undefined);
        await this.kubelet.kill(worker.uid);
      }),
    );
  }

  /** The pod object is gone: a container still running is stopped, then everything of it removed. */
  private forget(uid: string): void {
    const worker = this.workers.get(uid);
    if (!worker) return;
    this.workers.delete(uid);
    this.clearTimers(worker);
    const cleanup = (async () => {
      await worker.starting?.catch(() => undefined);
      await worker.stopping?.catch(() => undefined);
      if (worker.container && !worker.detached)
        await this.kubelet.stop(uid, MINIMUM_GRACE_SECONDS).catch(() => undefined);
      await this.kubelet.remove(uid).catch(() => undefined);
    })();
    this.cleanups.add(cleanup);
    void cleanup.finally(() => this.cleanups.delete(cleanup));
  }

  private clearTimers(worker: Worker): void {
    if (worker.retryTimer) clearTimeout(worker.retryTimer);
    if (worker.restartTimer) clearTimeout(worker.restartTimer);
    worker.retryTimer = undefined;
    worker.restartTimer = undefined;
  }
}
