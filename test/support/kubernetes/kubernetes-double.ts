import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { ApiDouble } from './api-double.js';
import { Disruptions } from './disruptions.js';
import { GarbageCollector } from './garbage-collector.js';
import { kubeConfigOf, kubeconfigYamlOf } from './kubeconfig.js';
import type { Kubelet } from './kubelet.js';
import { ManualKubelet } from './manual-kubelet.js';
import { MetricsApi } from './metrics-api.js';
import { type NodeObject, type NodeSpec, Nodes } from './nodes.js';
import { ObjectStore } from './object-store.js';
import { type KubeObject, LabelSelectorObjectSchema, type Pod, type Secret, timestamp } from './objects.js';
import { asPod, podStrategy } from './pod-strategy.js';
import { PodWorkers } from './pod-workers.js';
import { Authorizer, type Role, type UsedPermission } from './rbac.js';
import { disruptionBudgetStrategy, namespaceStrategy, nodeStrategy } from './read-only-strategies.js';
import { Registry } from './registry.js';
import { Scheduler } from './scheduler.js';
import { secretStrategy } from './secret-strategy.js';
import { WatchStreams } from './watch-streams.js';

/**
 * A Kubernetes API server on 127.0.0.1 for tests, with the controllers behind it: a scheduler over
 * the nodes it is given, pod workers running bound pods through a kubelet (ManualKubelet by default,
 * DockerKubelet for real containers), the garbage collector, disruption budgets and the metrics API.
 * The official @kubernetes/client-node reaches it through `kubeConfig()`. Each test should start its
 * own and close it. README.md beside this file lists what it does and where it differs from a cluster.
 */
export const KubernetesDoubleOptionsSchema = z.object({
  /** The namespaces that exist; the first is the kubeconfig's. */
  namespaces: z.array(z.string().min(1)).min(1).default(['meetbot']),
  nodes: z.array(z.custom<NodeSpec>()).default([{ name: 'node-a', cpu: '8', memory: '16Gi' }]),
  kubelet: z.custom<Kubelet>().optional(),
  /** The Role bound to the service account the token authenticates; without one, everything is allowed. */
  role: z.custom<Role>().optional(),
  /** The service account the token is for (user `system:serviceaccount:<namespace>:<name>`). */
  serviceAccount: z.string().default('meetbot-worker'),
  /** Whether metrics-server is installed (metrics.k8s.io served). */
  metrics: z.boolean().default(true),
  /** How many changes the watch history keeps (older resourceVersions are 410 Expired). */
  historyLimit: z.number().int().positive().default(1000),
  bookmarkIntervalMs: z.number().int().positive().default(1000),
  /** How soon the garbage collector looks at a dependent after a write. */
  gcDelayMs: z.number().int().nonnegative().default(200),
  /** How soon the kubelet tries again a pod it could not start (a Secret missing…). */
  kubeletRetryMs: z.number().int().positive().default(1000),
  /** The first restart back-off of restartPolicy Always/OnFailure containers (10 s on a kubelet). */
  restartBackOffMs: z.number().int().positive().default(10_000),
});
export type KubernetesDoubleOptions = z.input<typeof KubernetesDoubleOptionsSchema>;

/** A pod or secret by name in the default namespace, or by namespace and name. */
export type ObjectRef = string | { namespace?: string; name: string };

export interface PodWaitOptions {
  timeoutMs?: number;
}

export interface KubernetesDouble {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The default namespace (the first of `namespaces`). */
  namespace: string;
  namespaces: string[];
  /** The service account's bearer token (RBAC applies). */
  token: string;
  /** An administrator's bearer token (no RBAC, not recorded in usedPermissions). */
  adminToken: string;
  /** `system:serviceaccount:<namespace>:<serviceAccount>`. */
  user: string;
  kubelet: Kubelet;
  /** A KubeConfig for @kubernetes/client-node: the service account's, or the administrator's. */
  kubeConfig(options?: { admin?: boolean; namespace?: string }): KubeConfig;
  kubeconfigYaml(options?: { admin?: boolean; namespace?: string }): string;

  addNode(spec: NodeSpec): void;
  /** No new pods on the node (kubectl cordon); `uncordon` undoes it. */
  cordon(node: string): void;
  uncordon(node: string): void;
  /**
   * The node is lost: its containers are killed, its pods marked DisruptionTarget
   * (DeletionByTaintManager) and deleted. With `keepNode` the node object stays and the pods stay
   * Terminating, as in a cluster until the node comes back or is removed.
   */
  loseNode(node: string, options?: { keepNode?: boolean }): Promise<void>;
  nodes(): NodeObject[];

  pod(ref: ObjectRef): Pod | undefined;
  pods(namespace?: string): Pod[];
  secret(ref: ObjectRef): Secret | undefined;
  /** Resolves with the pod (or undefined once gone) when `until` holds; rejects after the timeout. */
  waitForPod(
    ref: ObjectRef,
    until: (pod: Pod | undefined) => boolean,
    options?: PodWaitOptions,
  ): Promise<Pod | undefined>;
  /** The scheduler preempts the pod: DisruptionTarget (PreemptionByScheduler), then a graceful delete. */
  preempt(ref: ObjectRef): void;
  /**
   * Node-pressure eviction: DisruptionTarget (TerminationByKubelet), the container killed (with
   * `graceSeconds`, 0 by default: a hard threshold), the pod left Failed with reason Evicted.
   */
  kubeletEvict(ref: ObjectRef, message: string, options?: { graceSeconds?: number }): Promise<void>;
  /** A policy/v1 PodDisruptionBudget (its YAML as an object) the Eviction API honours. */
  addDisruptionBudget(budget: { metadata: { name: string; namespace?: string }; spec: unknown }): void;

  setRole(role: Role | undefined): void;
  /** Every (verb, group, resource) the service account's token asked for, allowed or not. */
  usedPermissions(): UsedPermission[];
  resetUsedPermissions(): void;
  /** Installs or removes metrics-server (metrics.k8s.io answers 404 without it). */
  setMetricsAvailable(available: boolean): void;
  /** The store's current resourceVersion. */
  resourceVersion(): string;
  /** Forgets the watch history up to now: a watch from an older resourceVersion gets 410 Expired. */
  compactHistory(): void;
  /** Ends every open watch (clients must resume from their last resourceVersion). */
  dropWatches(): void;
  openWatches(): number;
  /** Stops the server, the controllers and the kubelet (which removes every container it started). */
  close(): Promise<void>;
}

function fakeServiceAccountToken(pod: Pod): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const namespace = pod.metadata.namespace ?? '';
  const account = pod.spec.serviceAccountName ?? 'default';
  return [
    encode({ alg: 'none', typ: 'JWT' }),
    encode({
      iss: 'https://kubernetes.default.svc',
      sub: `system:serviceaccount:${namespace}:${account}`,
      'kubernetes.io': {
        namespace,
        pod: { name: pod.metadata.name, uid: pod.metadata.uid },
        serviceaccount: { name: account },
      },
    }),
    'not-signed-by-the-test-double',
  ].join('.');
}

export async function startKubernetesDouble(input: KubernetesDoubleOptions = {}): Promise<KubernetesDouble> {
  const options = KubernetesDoubleOptionsSchema.parse(input);
  const namespace = options.namespaces[0]!;
  const instance = `kd-${randomBytes(4).toString('hex')}`;
  const store = new ObjectStore(options.historyLimit);
  const namespaceExists = (name: string) => store.get('namespaces', undefined, name) !== undefined;
  const registries = {
    pods: new Registry(store, podStrategy, namespaceExists),
    secrets: new Registry(store, secretStrategy, namespaceExists),
    nodes: new Registry(store, nodeStrategy, namespaceExists),
    namespaces: new Registry(store, namespaceStrategy, namespaceExists),
    poddisruptionbudgets: new Registry(store, disruptionBudgetStrategy, namespaceExists),
  };
  for (const name of options.namespaces)
    store.create('namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: randomBytes(16).toString('hex'),
        creationTimestamp: timestamp(),
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  const address = '127.0.0.1';
  const nodes = new Nodes(store, registries.nodes, address);
  for (const node of options.nodes) nodes.add(node);

  const kubelet = options.kubelet ?? new ManualKubelet();
  const workers = new PodWorkers(store, registries.pods, nodes, kubelet, {
    retryMs: options.kubeletRetryMs,
    restartBackOffMs: options.restartBackOffMs,
  });
  const scheduler = new Scheduler(store, registries.pods, nodes);
  const collector = new GarbageCollector(store, registries, options.gcDelayMs);
  const disruptions = new Disruptions(store, registries.pods, nodes, workers);
  const metrics = new MetricsApi(store, kubelet, options.metrics);
  const watches = new WatchStreams(store, options.bookmarkIntervalMs);
  const user = `system:serviceaccount:${namespace}:${options.serviceAccount}`;
  const authorizer = new Authorizer(user, options.role);
  const tokens = { serviceAccount: randomBytes(24).toString('hex'), admin: randomBytes(24).toString('hex') };
  const api = new ApiDouble({ registries, watches, authorizer, tokens, kubelet, metrics, disruptions });
  const port = await api.listen();
  const url = `http://${address}:${port}`;

  await kubelet.attach({
    secret: (ns, name) => store.get('secrets', ns, name) as Secret | undefined,
    apiServer: { host: address, port },
    instance,
    serviceAccountToken: fakeServiceAccountToken,
    exited: (podUid, containerId, exit) => workers.exited(podUid, containerId, exit),
  });
  workers.start();
  scheduler.start();
  collector.start();

  const refOf = (ref: ObjectRef) =>
    typeof ref === 'string'
      ? { namespace, name: ref }
      : { namespace: ref.namespace ?? namespace, name: ref.name };
  const podOf = (ref: ObjectRef) => {
    const { namespace: ns, name } = refOf(ref);
    const object = store.get('pods', ns, name);
    return object && asPod(object);
  };
  const configParts = (config?: { admin?: boolean; namespace?: string }) => ({
    server: url,
    token: config?.admin ? tokens.admin : tokens.serviceAccount,
    user: config?.admin ? 'kubernetes-admin' : user,
    namespace: config?.namespace ?? namespace,
  });

  let closed = false;
  return {
    url,
    namespace,
    namespaces: options.namespaces,
    token: tokens.serviceAccount,
    adminToken: tokens.admin,
    user,
    kubelet,
    kubeConfig: (config) => kubeConfigOf(configParts(config)),
    kubeconfigYaml: (config) => kubeconfigYamlOf(configParts(config)),

    addNode: (spec) => nodes.add(spec),
    cordon: (node) => nodes.setUnschedulable(node, true),
    uncordon: (node) => nodes.setUnschedulable(node, false),
    loseNode: (node, config) => disruptions.loseNode(node, !config?.keepNode),
    nodes: () => nodes.list(),

    pod: podOf,
    pods: (ns) => store.list('pods', ns ?? namespace).map(asPod),
    secret(ref) {
      const { namespace: ns, name } = refOf(ref);
      return store.get('secrets', ns, name) as Secret | undefined;
    },
    waitForPod(ref, until, config) {
      const timeoutMs = config?.timeoutMs ?? 30_000;
      return new Promise((resolve, reject) => {
        const check = () => {
          const pod = podOf(ref);
          if (!until(pod)) return false;
          finish();
          resolve(pod);
          return true;
        };
        const unsubscribe = store.subscribe(() => {
          check();
        });
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `pod ${JSON.stringify(refOf(ref))} did not reach the awaited state within ${timeoutMs} ms: ${JSON.stringify(podOf(ref)?.status ?? 'gone')}`,
            ),
          );
        }, timeoutMs);
        const finish = () => {
          unsubscribe();
          clearTimeout(timer);
        };
        check();
      });
    },
    preempt(ref) {
      const { namespace: ns, name } = refOf(ref);
      disruptions.preempt(ns, name);
    },
    kubeletEvict(ref, message, config) {
      const { namespace: ns, name } = refOf(ref);
      return disruptions.kubeletEvict(ns, name, message, config?.graceSeconds ?? 0);
    },
    addDisruptionBudget(budget) {
      const spec = z.object({ selector: LabelSelectorObjectSchema.optional() }).loose().parse(budget.spec);
      store.create('poddisruptionbudgets', {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: {
          name: budget.metadata.name,
          namespace: budget.metadata.namespace ?? namespace,
          uid: randomBytes(16).toString('hex'),
          creationTimestamp: timestamp(),
        },
        spec,
      } as KubeObject);
    },

    setRole: (role) => authorizer.setRole(role),
    usedPermissions: () => authorizer.usedPermissions(),
    resetUsedPermissions: () => authorizer.resetUsedPermissions(),
    setMetricsAvailable(available) {
      metrics.enabled = available;
    },
    resourceVersion: () => String(store.currentVersion),
    compactHistory: () => store.compact(),
    dropWatches: () => watches.dropAll(),
    openWatches: () => watches.count,
    async close() {
      if (closed) return;
      closed = true;
      scheduler.close();
      collector.close();
      await api.close();
      await workers.close();
      await kubelet.close();
    },
  };
}
