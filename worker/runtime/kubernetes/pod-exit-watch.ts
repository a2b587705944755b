import { type CoreV1Api, type KubeConfig, type V1Pod, Watch } from '@kubernetes/client-node';
import type { Logger } from '../../../shared/infra/logger.js';
import { botInfoOfPod, hasEnded } from './pod-state.js';
import type { PodTombstones } from './pod-tombstones.js';

export interface PodExitWatchDeps {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  namespace: string;
  log: Logger;
  tombstones: PodTombstones;
}

const NOT_FOUND = 404;

/** After a watch ends or fails, the wait before it is opened again. */
const RESUME_DELAY_MS = 1000;

export function labelSelectorOf(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

function matches(pod: V1Pod, labels: Record<string, string>): boolean {
  const own = pod.metadata?.labels ?? {};
  return Object.entries(labels).every(([key, value]) => own[key] === value);
}

/**
 * Calls back once for each bot pod carrying these labels that ends: its container terminated
 * (the pod stays, with restartPolicy Never, until the worker removes it) or the pod was deleted (an
 * eviction, its node lost), whichever comes first. It lists the pods, then watches from the list's
 * resourceVersion; a watch that ends is opened again from the last version seen, and one the server
 * answers `410 Gone` (the version is older than it keeps) lists again: a pod that went meanwhile is
 * an exit too. A pod that stops carrying the labels (another worker took it over) is not an exit.
 */
export class PodExitWatch {
  private closed = false;
  private resourceVersion = '';
  private abort: AbortController | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Pods seen carrying the labels and not yet ended, by uid, as last seen. */
  private readonly live = new Map<string, V1Pod>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly deps: PodExitWatchDeps,
    private readonly labels: Record<string, string>,
    private readonly listener: (id: string) => void,
  ) {}

  async start(): Promise<void> {
    await this.list();
    await this.watch();
  }

  stop(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.abort?.abort();
  }

  private async list(): Promise<void> {
    const list = await this.deps.core.listNamespacedPod({
      namespace: this.deps.namespace,
      labelSelector: labelSelectorOf(this.labels),
    });
    const present = new Set<string>();
    for (const pod of list.items) {
      const uid = pod.metadata?.uid ?? '';
      present.add(uid);
      this.seen(pod, false);
    }
    // Gone from the list while no watch was open: deleted, or taken over by another worker.
    for (const [uid, pod] of this.live) {
      if (!present.has(uid)) await this.confirmGone(pod);
    }
    for (const uid of this.reported) if (!present.has(uid)) this.reported.delete(uid);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
  }

  private async watch(): Promise<void> {
    if (this.closed) return;
    let relist = false;
    const watch = new Watch(this.deps.kubeConfig);
    this.abort = await watch.watch(
      `/api/v1/namespaces/${this.deps.namespace}/pods`,
      {
        labelSelector: labelSelectorOf(this.labels),
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
      },
      (type: string, object: V1Pod & { code?: number }) => {
        if (type === 'ERROR') {
          // 410 Gone: the version is too old; anything else: start again from a list as well.
          relist = true;
          this.deps.log.info({ code: object.code }, 'pod watch: the server asks for a new list');
          this.abort?.abort();
          return;
        }
        const version = object.metadata?.resourceVersion;
        if (version) this.resourceVersion = version;
        if (type === 'BOOKMARK') return;
        this.seen(object, type === 'DELETED');
      },
      (error: unknown) => {
        if (this.closed) return;
        if (error && !isAbort(error)) {
          relist = true;
          this.deps.log.warn({ err: error }, 'pod watch failed; listing again');
        }
        this.resume(relist);
      },
    );
  }

  private resume(relist: boolean): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      (relist ? this.list() : Promise.resolve())
        .then(() => this.watch())
        .catch((error: unknown) => {
          this.deps.log.warn({ err: error }, 'could not resume the pod watch yet');
          this.resume(true);
        });
    }, RESUME_DELAY_MS);
    this.retryTimer.unref();
  }

  private seen(pod: V1Pod, deleted: boolean): void {
    const uid = pod.metadata?.uid ?? '';
    const name = pod.metadata?.name ?? '';
    if (!matches(pod, this.labels)) {
      // Relabelled away (taken over by another worker): no longer this watch's.
      this.live.delete(uid);
      return;
    }
    if (deleted) {
      this.confirmGone(pod).catch((error: unknown) =>
        this.deps.log.warn({ err: error, pod: name }, 'could not read a pod the watch says went'),
      );
      return;
    }
    if (hasEnded(pod) || pod.status?.containerStatuses?.[0]?.state?.terminated) {
      // Its end as seen now: a pod being deleted may be gone by the time its exit is handled.
      this.deps.tombstones.remember(botInfoOfPod(pod));
      this.report(uid, name);
      return;
    }
    this.live.set(uid, pod);
  }

  /**
   * A watch with a label selector says DELETED both when the pod went and when it stopped carrying
   * the labels (another worker took it over), with the object as it last matched: only a read tells.
   */
  private async confirmGone(pod: V1Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    const name = pod.metadata?.name ?? '';
    let current: V1Pod | undefined;
    try {
      current = await this.deps.core.readNamespacedPod({ name, namespace: this.deps.namespace });
    } catch (error) {
      if ((error as { code?: number }).code !== NOT_FOUND) throw error;
    }
    if (current?.metadata?.uid === uid) {
      // Still there: relabelled away (or about to come back as itself), not gone.
      if (!matches(current, this.labels)) this.live.delete(uid);
      return;
    }
    this.deps.tombstones.remember(botInfoOfPod(pod, true));
    this.report(uid, name);
    // Nothing more comes of a deleted pod: forget it.
    this.reported.delete(uid);
  }

  private report(uid: string, name: string): void {
    this.live.delete(uid);
    if (this.reported.has(uid)) return;
    this.reported.add(uid);
    this.listener(name);
  }
}

function isAbort(error: unknown): boolean {
  const name = (error as { name?: string; type?: string }).name ?? (error as { type?: string }).type;
  return name === 'AbortError' || name === 'aborted';
}
