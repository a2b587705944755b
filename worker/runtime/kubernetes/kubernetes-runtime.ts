import {
  ApiException,
  ApisApi,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from '../../../shared/infra/logger.js';
import {
  type BotContainerInfo,
  type BotContainerSpec,
  BotNotPlacedError,
  type BotRuntime,
  type ContainerUsage,
  type LaunchProgress,
} from '../bot-runtime.js';
import { type BotPodOptions, botPodManifest, botSecretManifest } from './bot-pod.js';
import { labelSelectorOf, PodExitWatch } from './pod-exit-watch.js';
import { botInfoOfPod, hasEnded, isRunning, unschedulableMessage, waitingReason } from './pod-state.js';
import { PodTombstones } from './pod-tombstones.js';
import { parseQuantity } from './quantity.js';

export interface KubernetesRuntimeOptions extends BotPodOptions {
  /** A pod no node takes for this long is deleted and its launch fails (`bot_unschedulable`). */
  unschedulableMs: number;
  /** A pod placed but not running after this long is deleted and its launch fails. */
  startTimeoutMs: number;
  /** How often a launch looks at its pod until it runs. */
  pollMs?: number;
}

const NOT_FOUND = 404;
const BAD_REQUEST = 400;
const METRICS_GROUP = 'metrics.k8s.io';
/** How long past its grace a stop waits for the kubelet to end the pod. */
const STOP_SLACK_SECONDS = 15;
/** Waiting reasons that no wait cures: the launch fails at once, saying which. */
const HOPELESS_WAITS = ['CreateContainerConfigError', 'InvalidImageName', 'ErrImageNeverPull'];

function statusOf(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : (error as { code?: number }).code;
}

async function unlessGone<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (statusOf(error) === NOT_FOUND) return undefined;
    throw error;
  }
}

/**
 * Bots as pods in one namespace of a Kubernetes cluster, through the official client: one pod per
 * bot (bot-pod.ts) with its config and files in a Secret the pod owns. A pod's name is the bot's id.
 * Every worker of the deployment sees every bot pod, so one may take over a dead worker's bots
 * (relabel).
 */
export class KubernetesRuntime implements BotRuntime {
  readonly sharedAmongWorkers = true;
  private readonly core: CoreV1Api;
  private readonly metrics: CustomObjectsApi;
  private readonly tombstones = new PodTombstones();
  private metricsApi: Promise<boolean> | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly options: KubernetesRuntimeOptions,
    private readonly log: Logger,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.metrics = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  private get namespace(): string {
    return this.options.namespace;
  }

  async start(spec: BotContainerSpec, progress?: LaunchProgress): Promise<string> {
    const secret = botSecretManifest(spec, this.options);
    const podManifest = botPodManifest(spec, this.options);
    await this.core.createNamespacedSecret({ namespace: this.namespace, body: secret });
    try {
      const pod = await this.core.createNamespacedPod({ namespace: this.namespace, body: podManifest });
      // Owned by its pod from now on: deleting the pod (whoever does) deletes the Secret.
      await this.core.patchNamespacedSecret({
        name: spec.name,
        namespace: this.namespace,
        body: [
          {
            op: 'add',
            path: '/metadata/ownerReferences',
            value: [{ apiVersion: 'v1', kind: 'Pod', name: spec.name, uid: pod.metadata?.uid }],
          },
        ],
      });
      await this.waitUntilRunning(spec.name, progress);
    } catch (error) {
      await this.remove(spec.name).catch((removeError: unknown) =>
        this.log.warn({ err: removeError, pod: spec.name }, 'could not remove a bot pod that did not start'),
      );
      throw error;
    }
    return spec.name;
  }

  /**
   * Resolves once the pod runs (or already ended: its exit is handled as any other). Tells `progress`
   * while no node takes it, and gives up after the options' waits.
   */
  private async waitUntilRunning(name: string, progress: LaunchProgress | undefined): Promise<void> {
    const startedAt = Date.now();
    let unschedulableSince: number | undefined;
    let told: string | undefined;
    for (;;) {
      const pod = await this.core.readNamespacedPod({ name, namespace: this.namespace });
      if (isRunning(pod) || hasEnded(pod)) return;
      const unschedulable = unschedulableMessage(pod);
      if (unschedulable) {
        unschedulableSince ??= Date.now();
        if (unschedulable !== told) {
          told = unschedulable;
          progress?.waiting(`no node can take the bot's pod yet: ${unschedulable}`);
        }
        if (Date.now() - unschedulableSince >= this.options.unschedulableMs) {
          const seconds = Math.round(this.options.unschedulableMs / 1000);
          throw new BotNotPlacedError(
            'bot_unschedulable',
            `no node could take the bot's pod within ${seconds} s (BOT_POD_UNSCHEDULABLE_SECONDS): ${unschedulable}`,
          );
        }
      } else {
        unschedulableSince = undefined;
        const waiting = waitingReason(pod);
        if (waiting && HOPELESS_WAITS.some((reason) => waiting.startsWith(reason)))
          throw new Error(`the bot's pod can't start: ${waiting}`);
        if (Date.now() - startedAt >= this.options.startTimeoutMs) {
          const seconds = Math.round(this.options.startTimeoutMs / 1000);
          throw new Error(
            `the bot's pod was not running within ${seconds} s (BOT_POD_START_TIMEOUT_SECONDS): ${waiting ?? pod.status?.phase ?? 'no status'}`,
          );
        }
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 500));
    }
  }

  async inspect(id: string): Promise<BotContainerInfo | undefined> {
    const pod = await unlessGone(this.core.readNamespacedPod({ name: id, namespace: this.namespace }));
    return pod ? botInfoOfPod(pod) : this.tombstones.find(id);
  }

  async list(labels: Record<string, string>): Promise<BotContainerInfo[]> {
    const pods = await this.core.listNamespacedPod({
      namespace: this.namespace,
      labelSelector: labelSelectorOf(labels),
    });
    return pods.items.map((pod: V1Pod) => botInfoOfPod(pod));
  }

  /**
   * Deletes the pod with this grace (the kubelet sends SIGTERM, then SIGKILL once it is over) and, as
   * Docker's stop does, returns once the bot no longer runs (its exit is then the watch's).
   */
  async stop(id: string, graceSeconds: number): Promise<void> {
    const deleting = await unlessGone(
      this.core.deleteNamespacedPod({
        name: id,
        namespace: this.namespace,
        gracePeriodSeconds: graceSeconds,
      }),
    );
    if (!deleting) return;
    const deadline = Date.now() + (graceSeconds + STOP_SLACK_SECONDS) * 1000;
    while (Date.now() < deadline) {
      const pod = await unlessGone(this.core.readNamespacedPod({ name: id, namespace: this.namespace }));
      if (!pod || hasEnded(pod) || pod.status?.containerStatuses?.[0]?.state?.terminated) return;
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 500));
    }
    this.log.warn({ pod: id, graceSeconds }, 'a deleted bot pod still runs past its grace');
  }

  /** Deletes the pod at once and its Secret (which its owner reference would delete soon after). */
  async remove(id: string): Promise<void> {
    this.tombstones.forget(id);
    await unlessGone(
      this.core.deleteNamespacedPod({ name: id, namespace: this.namespace, gracePeriodSeconds: 0 }),
    );
    await unlessGone(this.core.deleteNamespacedSecret({ name: id, namespace: this.namespace }));
  }

  async relabel(id: string, labels: Record<string, string>): Promise<void> {
    await this.core.patchNamespacedPod({
      name: id,
      namespace: this.namespace,
      body: Object.entries(labels).map(([key, value]) => ({
        op: 'add',
        path: `/metadata/labels/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        value,
      })),
    });
  }

  /** The container's last lines; none for a pod gone, or one whose container never started (400). */
  async logsTail(id: string, lines: number): Promise<string> {
    try {
      const logs = await this.core.readNamespacedPodLog({
        name: id,
        namespace: this.namespace,
        tailLines: lines,
      });
      return typeof logs === 'string' ? logs : '';
    } catch (error) {
      const status = statusOf(error);
      if (status === NOT_FOUND || status === BAD_REQUEST) return '';
      throw error;
    }
  }

  /** From the metrics API (metrics-server) when the cluster has one; undefined otherwise. */
  async usage(id: string): Promise<ContainerUsage | undefined> {
    if (!(await this.hasMetricsApi())) return undefined;
    const metrics = (await unlessGone(
      this.metrics.getNamespacedCustomObject({
        group: METRICS_GROUP,
        version: 'v1beta1',
        namespace: this.namespace,
        plural: 'pods',
        name: id,
      }),
    )) as { containers?: Array<{ usage?: { cpu?: string; memory?: string } }> } | undefined;
    // Undefined too for a pod too new for its first sample.
    const usage = metrics?.containers?.[0]?.usage;
    if (!usage) return undefined;
    return {
      memoryBytes: parseQuantity(usage.memory ?? '0'),
      cpuNanos: 0,
      systemCpuNanos: 0,
      onlineCpus: 1,
      cpuCores: parseQuantity(usage.cpu ?? '0'),
    };
  }

  /** Whether the cluster serves the metrics API, asked once. */
  private hasMetricsApi(): Promise<boolean> {
    this.metricsApi ??= this.kubeConfig
      .makeApiClient(ApisApi)
      .getAPIVersions()
      .then((groups) => {
        const present = groups.groups.some((group) => group.name === METRICS_GROUP);
        if (!present)
          this.log.info('the cluster has no metrics API (metrics-server): bot usage is not measured');
        return present;
      })
      .catch((error: unknown) => {
        this.metricsApi = undefined;
        throw error;
      });
    return this.metricsApi;
  }

  async onExit(labels: Record<string, string>, listener: (id: string) => void): Promise<() => void> {
    const watch = new PodExitWatch(
      {
        kubeConfig: this.kubeConfig,
        core: this.core,
        namespace: this.namespace,
        log: this.log.child({ component: 'pod-watch' }),
        tombstones: this.tombstones,
      },
      labels,
      listener,
    );
    await watch.start();
    return () => watch.stop();
  }
}
