import { notFound, pathNotFound } from './api-errors.js';
import type { ContainerUsage, Kubelet } from './kubelet.js';
import type { ObjectStore } from './object-store.js';
import { type Pod, timestamp } from './objects.js';
import { asPod } from './pod-strategy.js';
import { formatKibibytes, formatNanocores } from './quantity.js';

/**
 * The resource metrics API metrics-server adds (`metrics.k8s.io/v1beta1`,
 * https://kubernetes.io/docs/tasks/debug/debug-cluster/resource-metrics-pipeline/): PodMetrics of
 * running pods with each container's CPU rate (nanocores) and working-set memory (KiB), and
 * NodeMetrics summed over a node's pods. A pod with no sample yet is NotFound, as with
 * metrics-server. A cluster without metrics-server serves no such group: every path is 404.
 */
export const METRICS_GROUP = 'metrics.k8s.io';
const API_VERSION = `${METRICS_GROUP}/v1beta1`;
const WINDOW = '10s';

export class MetricsApi {
  enabled: boolean;

  constructor(
    private readonly store: ObjectStore,
    private readonly kubelet: Kubelet,
    enabled: boolean,
  ) {
    this.enabled = enabled;
  }

  private async sample(pod: Pod): Promise<ContainerUsage | undefined> {
    if (pod.status?.containerStatuses?.[0]?.state?.running === undefined) return undefined;
    return this.kubelet.usage(pod).catch(() => undefined);
  }

  private podMetrics(pod: Pod, usage: ContainerUsage): Record<string, unknown> {
    const now = timestamp();
    return {
      metadata: {
        name: pod.metadata.name,
        namespace: pod.metadata.namespace,
        creationTimestamp: now,
        labels: pod.metadata.labels ?? {},
      },
      timestamp: now,
      window: WINDOW,
      containers: [
        {
          name: pod.spec.containers?.[0]?.name ?? '',
          usage: { cpu: formatNanocores(usage.cpuNanocores), memory: formatKibibytes(usage.memoryBytes) },
        },
      ],
    };
  }

  async getPod(namespace: string, name: string): Promise<Record<string, unknown>> {
    if (!this.enabled) throw pathNotFound();
    const object = this.store.get('pods', namespace, name);
    const usage = object && (await this.sample(asPod(object)));
    if (!object || !usage)
      throw notFound({ group: METRICS_GROUP, resource: 'podmetrics' }, `${namespace}/${name}`);
    return { kind: 'PodMetrics', apiVersion: API_VERSION, ...this.podMetrics(asPod(object), usage) };
  }

  async listPods(namespace: string | undefined): Promise<Record<string, unknown>> {
    if (!this.enabled) throw pathNotFound();
    const pods = this.store.list('pods', namespace).map(asPod);
    // Sampled at once: a Docker engine takes about a second for each.
    const samples = await Promise.all(pods.map((pod) => this.sample(pod)));
    const items = pods.flatMap((pod, index) => {
      const usage = samples[index];
      return usage ? [this.podMetrics(pod, usage)] : [];
    });
    return { kind: 'PodMetricsList', apiVersion: API_VERSION, metadata: {}, items };
  }

  private async nodeMetrics(node: string): Promise<Record<string, unknown>> {
    let cpu = 0;
    let memory = 0;
    for (const pod of this.store
      .list('pods')
      .map(asPod)
      .filter((candidate) => candidate.spec.nodeName === node)) {
      const usage = await this.sample(pod);
      cpu += usage?.cpuNanocores ?? 0;
      memory += usage?.memoryBytes ?? 0;
    }
    const now = timestamp();
    return {
      metadata: { name: node, creationTimestamp: now },
      timestamp: now,
      window: WINDOW,
      usage: { cpu: formatNanocores(cpu), memory: formatKibibytes(memory) },
    };
  }

  async getNode(name: string): Promise<Record<string, unknown>> {
    if (!this.enabled) throw pathNotFound();
    if (!this.store.get('nodes', undefined, name))
      throw notFound({ group: METRICS_GROUP, resource: 'nodemetrics' }, name);
    return { kind: 'NodeMetrics', apiVersion: API_VERSION, ...(await this.nodeMetrics(name)) };
  }

  async listNodes(): Promise<Record<string, unknown>> {
    if (!this.enabled) throw pathNotFound();
    const items = [];
    for (const node of this.store.list('nodes')) items.push(await this.nodeMetrics(node.metadata.name ?? ''));
    return { kind: 'NodeMetricsList', apiVersion: API_VERSION, metadata: {}, items };
  }
}
