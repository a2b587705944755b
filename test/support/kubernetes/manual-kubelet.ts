import { Readable } from 'node:stream';
import { containerEnvironment, expandedCommand } from './container-environment.js';
import { checkRunAsNonRoot, effectiveSecurity } from './container-security.js';
import {
  type ContainerExit,
  type ContainerUsage,
  ContainerWaiting,
  type Kubelet,
  type KubeletContext,
  type LogRequest,
  type StartedContainer,
} from './kubelet.js';
import { type Pod, timestamp } from './objects.js';
import { tail } from './pod-logs.js';
import { cpuMillicores, wholeUnits } from './quantity.js';
import { planVolumes, type VolumePlan } from './volume-plan.js';

/**
 * A kubelet without processes, for tests that need no Docker: a bound pod's container "runs" at
 * once, and the test decides when it ends (`exit`). It still makes the checks a kubelet makes before
 * starting a container — the Secrets of its volumes and environment exist, runAsNonRoot holds — so
 * a pod waits as it would on a node, and it records what the container would have been given (its
 * environment, command and volume files) for tests to read. Its log is the text the test sets.
 */
export interface ManualKubeletOptions {
  /** What each container prints (the log read through pods/log); later text can be appended. */
  logText?: string | ((pod: Pod) => string);
  /**
   * The image's user, as its config says it (the runAsNonRoot check reads it when the pod sets no
   * runAsUser); numeric and not root by default.
   */
  imageUser?: string;
  /** By default a container exits at once on SIGTERM (143); false: it ignores it until SIGKILL when the grace is over (137). */
  exitOnSigterm?: boolean;
  /** What metrics report for a running container unless a test sets it. */
  usage?: { cpu: string; memory: string };
}

export interface ManualContainer {
  id: string;
  podUid: string;
  namespace: string;
  podName: string;
  attempt: number;
  startedAt: string;
  running: boolean;
  environment: Map<string, string>;
  command: string[] | undefined;
  args: string[] | undefined;
  volumes: VolumePlan[];
  log: string;
  usage: ContainerUsage;
  exit?: ContainerExit;
}

export type PodName = string | { namespace?: string; name: string };

export class ManualKubelet implements Kubelet {
  private context: KubeletContext | undefined;
  private readonly containers = new Map<string, ManualContainer[]>();
  private readonly refusals = new Map<string, ContainerWaiting>();
  /** SIGKILLs due to containers that ignore SIGTERM. */
  private readonly kills = new Set<NodeJS.Timeout>();
  /** Callers waiting for a container to end, by container id. */
  private readonly endWaiters = new Map<string, Array<() => void>>();
  private sequence = 0;

  constructor(private readonly options: ManualKubeletOptions = {}) {}

  async attach(context: KubeletContext): Promise<void> {
    this.context = context;
  }

  private get attached(): KubeletContext {
    if (!this.context) throw new Error('the ManualKubelet is not attached to a Kubernetes double');
    return this.context;
  }

  /** Until `allowStart`, pods by this name wait with this reason (e.g. ErrImagePull), as if their image could not be had. */
  refuseStart(pod: PodName, reason: string, message?: string): void {
    this.refusals.set(this.key(pod), new ContainerWaiting(reason, message));
  }

  allowStart(pod: PodName): void {
    this.refusals.delete(this.key(pod));
  }

  private key(pod: PodName): string {
    return typeof pod === 'string' ? `*/${pod}` : `${pod.namespace ?? '*'}/${pod.name}`;
  }

  async start(pod: Pod, attempt: number): Promise<StartedContainer> {
    const context = this.attached;
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const refusal = this.refusals.get(`${namespace}/${name}`) ?? this.refusals.get(`*/${name}`);
    if (refusal) throw refusal;
    const container = pod.spec.containers?.[0];
    if (!container) throw new ContainerWaiting('CreateContainerError', 'no container');
    const volumes = planVolumes(pod, context, '127.0.0.1');
    const environment = containerEnvironment(pod, container, context, '127.0.0.1');
    checkRunAsNonRoot(pod, container, effectiveSecurity(pod, container), this.options.imageUser ?? '1000');
    const { command, args } = expandedCommand(container, environment);
    const usage = this.options.usage ?? { cpu: '10m', memory: '32Mi' };
    this.sequence += 1;
    const started: ManualContainer = {
      id: `manual://${context.instance}-${this.sequence}`,
      podUid: pod.metadata.uid ?? '',
      namespace,
      podName: name,
      attempt,
      startedAt: timestamp(),
      running: true,
      environment,
      command,
      args,
      volumes,
      log:
        typeof this.options.logText === 'function' ? this.options.logText(pod) : (this.options.logText ?? ''),
      usage: { cpuNanocores: cpuMillicores(usage.cpu) * 1e6, memoryBytes: wholeUnits(usage.memory) },
    };
    const list = this.containers.get(started.podUid) ?? [];
    list.push(started);
    this.containers.set(started.podUid, list);
    return { containerId: started.id, imageId: `manual://${container.image}`, startedAt: started.startedAt };
  }

  /** The latest container of the pod (running or not). */
  container(pod: PodName): ManualContainer {
    const namespace = typeof pod === 'string' ? undefined : pod.namespace;
    const name = typeof pod === 'string' ? pod : pod.name;
    const matches = [...this.containers.values()]
      .map((list) => list.at(-1)!)
      .filter(
        (entry) => entry.podName === name && (namespace === undefined || entry.namespace === namespace),
      );
    const running = matches.filter((entry) => entry.running);
    const found = running.at(-1) ?? matches.at(-1);
    if (!found) throw new Error(`the ManualKubelet runs no container of pod ${name}`);
    return found;
  }

  /** The pod's container ends with this exit code (reason Completed for 0, Error otherwise, unless given: OOMKilled…). */
  exit(pod: PodName, exitCode: number, reason?: string): void {
    const container = this.container(pod);
    if (!container.running) throw new Error(`the container of pod ${container.podName} is not running`);
    this.end(container, exitCode, reason);
    this.attached.exited(container.podUid, container.id, container.exit!);
  }

  setLog(pod: PodName, text: string): void {
    this.container(pod).log = text;
  }

  appendLog(pod: PodName, text: string): void {
    this.container(pod).log += text;
  }

  setUsage(pod: PodName, usage: { cpu: string; memory: string }): void {
    this.container(pod).usage = {
      cpuNanocores: cpuMillicores(usage.cpu) * 1e6,
      memoryBytes: wholeUnits(usage.memory),
    };
  }

  private end(container: ManualContainer, exitCode: number, reason?: string): ContainerExit {
    if (!container.running) return container.exit!;
    container.running = false;
    container.exit = {
      exitCode,
      reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
      startedAt: container.startedAt,
      finishedAt: timestamp(),
    };
    for (const wake of this.endWaiters.get(container.id) ?? []) wake();
    this.endWaiters.delete(container.id);
    return container.exit;
  }

  private current(podUid: string): ManualContainer | undefined {
    return this.containers.get(podUid)?.at(-1);
  }

  async stop(podUid: string, graceSeconds: number): Promise<ContainerExit | undefined> {
    const container = this.current(podUid);
    if (!container?.running) return container?.exit;
    if (this.options.exitOnSigterm !== false) return this.end(container, 143);
    const ended = new Promise<void>((resolve) => {
      this.endWaiters.set(container.id, [...(this.endWaiters.get(container.id) ?? []), resolve]);
    });
    const kill = setTimeout(() => {
      this.kills.delete(kill);
      this.end(container, 137);
    }, graceSeconds * 1000);
    this.kills.add(kill);
    await ended;
    clearTimeout(kill);
    this.kills.delete(kill);
    return container.exit;
  }

  async kill(podUid: string): Promise<void> {
    const container = this.current(podUid);
    if (container) this.end(container, 137);
  }

  async remove(podUid: string): Promise<void> {
    this.containers.delete(podUid);
  }

  async logs(pod: Pod, request: LogRequest): Promise<string | Readable> {
    const list = this.containers.get(pod.metadata.uid ?? '') ?? [];
    const container = request.previous ? list.at(-2) : list.at(-1);
    let text = tail(container?.log ?? '', request.tailLines);
    if (request.limitBytes !== undefined)
      text = Buffer.from(text).subarray(0, request.limitBytes).toString('utf8');
    return request.follow ? Readable.from([text]) : text;
  }

  async usage(pod: Pod): Promise<ContainerUsage | undefined> {
    const container = this.current(pod.metadata.uid ?? '');
    return container?.running ? container.usage : undefined;
  }

  async close(): Promise<void> {
    for (const timer of this.kills) clearTimeout(timer);
    this.kills.clear();
    for (const list of this.containers.values()) for (const container of list) this.end(container, 137);
    this.containers.clear();
  }
}
