import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { ObjectStore } from './object-store.js';
import type { KubeObject, Node } from './objects.js';
import { clone, timestamp } from './objects.js';
import { cpuMillicores, isQuantity, wholeUnits } from './quantity.js';
import type { Registry } from './registry.js';

/** A node of the double: its name and allocatable CPU and memory (`{ name: 'node-a', cpu: '4', memory: '8Gi' }`). */
export const NodeSpecSchema = z.object({
  name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/),
  cpu: z.union([z.string(), z.number()]).refine((value) => isQuantity(String(value)), 'a quantity'),
  memory: z.union([z.string(), z.number()]).refine((value) => isQuantity(String(value)), 'a quantity'),
  /** At most this many pods (the kubelet's default is 110). */
  pods: z.number().int().positive().default(110),
  labels: z.record(z.string(), z.string()).default({}),
});
export type NodeSpec = z.input<typeof NodeSpecSchema>;

/** A Node object as served; the API always gives nodes a name. */
export type NodeObject = Node & { metadata: { name: string } };

/** The taint the node lifecycle controller puts on a node it no longer hears from. */
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

export interface Allocatable {
  cpuMillicores: number;
  memoryBytes: number;
  pods: number;
}

export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** Node objects as the API serves them, and the changes the tests' hooks make to them. */
export class Nodes {
  constructor(
    private readonly store: ObjectStore,
    private readonly registry: Registry,
    /** The address every node (and, on host networking, every pod) has. */
    readonly address: string,
  ) {}

  add(spec: NodeSpec): void {
    const node = NodeSpecSchema.parse(spec);
    const quantities = { cpu: String(node.cpu), memory: String(node.memory), pods: String(node.pods) };
    this.store.create('nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: node.name,
        uid: randomUUID(),
        creationTimestamp: timestamp(),
        labels: {
          'kubernetes.io/hostname': node.name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': process.arch === 'arm64' ? 'arm64' : 'amd64',
          ...node.labels,
        },
      },
      spec: {},
      status: {
        capacity: quantities,
        allocatable: quantities,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: timestamp(),
            lastTransitionTime: timestamp(),
          },
        ],
        addresses: [
          { type: 'InternalIP', address: this.address },
          { type: 'Hostname', address: node.name },
        ],
      },
    });
  }

  get(name: string): NodeObject | undefined {
    return this.store.get('nodes', undefined, name) as NodeObject | undefined;
  }

  list(): NodeObject[] {
    return this.store.list('nodes') as NodeObject[];
  }

  /** `kubectl cordon`: no new pods; those there stay. */
  setUnschedulable(name: string, unschedulable: boolean): void {
    this.change(name, (node) => {
      node.spec = { ...(node.spec as object), unschedulable: unschedulable || undefined };
      if (!unschedulable) delete (node.spec as Record<string, unknown>).unschedulable;
    });
  }

  /**
   * The node stops answering: the node lifecycle controller sets its Ready condition Unknown and
   * taints it unreachable, NoSchedule and NoExecute
   * (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-based-evictions).
   */
  markUnreachable(name: string): void {
    this.change(name, (node) => {
      const status = node.status as { conditions?: Array<Record<string, unknown>> };
      status.conditions = [
        {
          type: 'Ready',
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Kubelet stopped posting node status.',
          lastHeartbeatTime: timestamp(),
          lastTransitionTime: timestamp(),
        },
      ];
      const spec = node.spec as { taints?: Taint[] };
      spec.taints = [
        { key: UNREACHABLE_TAINT, effect: 'NoSchedule' },
        { key: UNREACHABLE_TAINT, effect: 'NoExecute' },
      ];
    });
  }

  remove(name: string): void {
    if (this.get(name)) this.registry.delete(undefined, name);
  }

  /** A node that exists and whose kubelet still answers. */
  isReachable(name: string): boolean {
    const node = this.get(name);
    return node !== undefined && !taintsOf(node).some((taint) => taint.key === UNREACHABLE_TAINT);
  }

  private change(name: string, edit: (node: KubeObject) => void): void {
    const node = this.store.get('nodes', undefined, name);
    if (!node) throw new Error(`no node ${name}`);
    const next = clone(node);
    edit(next);
    if (!isDeepStrictEqual(next, node)) this.store.update('nodes', next);
  }
}

export function taintsOf(node: Node): Taint[] {
  return ((node.spec as { taints?: Taint[] }).taints ?? []).filter((taint) => taint.key);
}

export function allocatableOf(node: Node): Allocatable {
  const allocatable = node.status.allocatable ?? {};
  return {
    cpuMillicores: cpuMillicores(allocatable.cpu ?? 0),
    memoryBytes: wholeUnits(allocatable.memory ?? 0),
    pods: wholeUnits(allocatable.pods ?? 110),
  };
}
