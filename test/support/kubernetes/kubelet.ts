import type { Readable } from 'node:stream';
import type { Pod, Secret } from './objects.js';

/**
 * What the double asks of a kubelet: run the one container of a pod bound to a node, stop it,
 * read its logs and usage. The pod's status (phases, conditions, restarts, deletion) is written by
 * the double's pod workers (pod-workers.ts) from what the kubelet answers, so each kubelet only
 * runs containers: DockerKubelet on the local Docker engine, ManualKubelet in memory.
 */
export interface ContainerExit {
  exitCode: number;
  /** `Completed` (0), `Error`, `OOMKilled`, `StartError`… as the kubelet reports a terminated container. */
  reason: string;
  message?: string;
  signal?: number;
  startedAt?: string;
  finishedAt: string;
}

export interface StartedContainer {
  /** `docker://<id>` or `manual://<id>`, as status.containerStatuses[].containerID carries it. */
  containerId: string;
  imageId: string;
  startedAt: string;
}

/**
 * A container the kubelet can't start yet: the pod waits with this reason (ContainerCreating while
 * a volume's Secret is missing, CreateContainerConfigError for a runAsNonRoot image that runs as
 * root, ErrImageNeverPull…), and the kubelet tries again later.
 */
export class ContainerWaiting extends Error {
  constructor(
    readonly reason: string,
    readonly detail?: string,
  ) {
    super(detail ?? reason);
  }
}

export interface KubeletContext {
  /** A Secret as the kubelet reads it from the API server (undefined when there is none). */
  secret(namespace: string, name: string): Secret | undefined;
  /** Where the API server is, for the pod's KUBERNETES_SERVICE_HOST and _PORT. */
  apiServer: { host: string; port: number };
  /** Marks everything this double starts (Docker labels, directory names). */
  instance: string;
  /** The token the kubelet writes into a pod's service-account volume. */
  serviceAccountToken(pod: Pod): string;
  /** A container ended by itself (its process exited or was killed by the kernel). */
  exited(podUid: string, containerId: string, exit: ContainerExit): void;
}

export interface LogRequest {
  tailLines?: number;
  previous?: boolean;
  timestamps?: boolean;
  sinceSeconds?: number;
  limitBytes?: number;
  follow?: boolean;
}

export interface ContainerUsage {
  /** CPU rate in nanocores over the last sample window. */
  cpuNanocores: number;
  /** Working set in bytes (usage less inactive file cache, as metrics-server reports it). */
  memoryBytes: number;
}

export interface Kubelet {
  attach(context: KubeletContext): Promise<void>;
  /** Creates and starts the pod's container (attempt 0, then 1… after restarts); throws ContainerWaiting while it can't. */
  start(pod: Pod, attempt: number): Promise<StartedContainer>;
  /** SIGTERM, then SIGKILL once `graceSeconds` are over; answers its exit once it ended (undefined if none ran). */
  stop(podUid: string, graceSeconds: number): Promise<ContainerExit | undefined>;
  /** SIGKILL at once, nothing reported: what befalls a pod whose node is lost. */
  kill(podUid: string): Promise<void>;
  /** The pod object is gone: its containers and files go too. */
  remove(podUid: string): Promise<void>;
  /** The container's output; a stream when following. */
  logs(pod: Pod, request: LogRequest): Promise<string | Readable>;
  usage(pod: Pod): Promise<ContainerUsage | undefined>;
  /** Removes every container it started. */
  close(): Promise<void>;
}
