import { afterEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { ManualKubelet } from '../../../support/kubernetes/manual-kubelet.js';
import { clientsOf, podManifest } from './clients.js';

function sized(name: string, cpu: string, memory: string, requests = true) {
  const manifest = podManifest(name);
  manifest.spec!.containers[0]!.resources = requests
    ? { requests: { cpu, memory } }
    : { limits: { cpu, memory } };
  return manifest;
}

const scheduled = (
  pod:
    | { status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> } }
    | undefined,
) => pod?.status?.conditions?.find((condition) => condition.type === 'PodScheduled');

describe('the Kubernetes API double: nodes and the scheduler', () => {
  let double: KubernetesDouble;
  afterEach(() => double.close());

  it('binds a pod to a node its requests fit, and keeps one that fits none Pending with the scheduler message until capacity frees', async () => {
    const kubelet = new ManualKubelet();
    double = await startKubernetesDouble({
      kubelet,
      nodes: [
        { name: 'node-a', cpu: '2', memory: '1Gi' },
        { name: 'node-b', cpu: '2', memory: '1Gi' },
      ],
    });
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: sized('first', '500m', '768Mi') });
    // Limits only: the requests default to them.
    await core.createNamespacedPod({ namespace: 'meetbot', body: sized('second', '1', '768Mi', false) });
    const first = await double.waitForPod('first', (pod) => Boolean(pod?.spec.nodeName));
    const second = await double.waitForPod('second', (pod) => Boolean(pod?.spec.nodeName));
    expect(first?.spec.nodeName).toBe('node-a');
    expect(second?.spec.nodeName).toBe('node-b');
    expect(second?.spec.containers?.[0]?.resources?.requests).toEqual({ cpu: '1', memory: '768Mi' });
    expect(scheduled(first)).toMatchObject({ status: 'True' });

    await core.createNamespacedPod({ namespace: 'meetbot', body: sized('third', '100m', '512Mi') });
    const waiting = await double.waitForPod('third', (pod) => scheduled(pod)?.status === 'False');
    expect(scheduled(waiting)).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: '0/2 nodes are available: 2 Insufficient memory.',
    });
    expect(waiting?.status?.phase).toBe('Pending');
    expect(waiting?.spec.nodeName).toBeUndefined();

    // The first pod ends: its requests no longer count, and the waiting pod goes there.
    await double.waitForPod('first', (pod) => pod?.status?.phase === 'Running');
    kubelet.exit('first', 0);
    const placed = await double.waitForPod('third', (pod) => Boolean(pod?.spec.nodeName));
    expect(placed?.spec.nodeName).toBe('node-a');
    expect(scheduled(placed)).toMatchObject({ status: 'True' });
  });

  it('counts every reason a node refuses, skips cordoned nodes, and places pending pods on a node added later', async () => {
    double = await startKubernetesDouble({
      nodes: [
        { name: 'node-a', cpu: '1', memory: '4Gi' },
        { name: 'node-b', cpu: '4', memory: '1Gi' },
        { name: 'node-c', cpu: '8', memory: '8Gi' },
      ],
    });
    const { core } = clientsOf(double);
    double.cordon('node-c');
    await core.createNamespacedPod({ namespace: 'meetbot', body: sized('big', '2', '2Gi') });
    const waiting = await double.waitForPod('big', (pod) => scheduled(pod)?.status === 'False');
    expect(scheduled(waiting)?.message).toBe(
      '0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were unschedulable.',
    );
    double.addNode({ name: 'node-d', cpu: '2', memory: '2Gi' });
    const placed = await double.waitForPod('big', (pod) => Boolean(pod?.spec.nodeName));
    expect(placed?.spec.nodeName).toBe('node-d');

    await core.createNamespacedPod({ namespace: 'meetbot', body: sized('next', '2', '2Gi') });
    await double.waitForPod('next', (pod) => scheduled(pod)?.status === 'False');
    double.uncordon('node-c');
    expect((await double.waitForPod('next', (pod) => Boolean(pod?.spec.nodeName)))?.spec.nodeName).toBe(
      'node-c',
    );

    const nodes = await core.listNode();
    expect(nodes.items.map((node) => node.metadata?.name)).toEqual(['node-a', 'node-b', 'node-c', 'node-d']);
    expect(nodes.items[0]?.status?.allocatable).toEqual({ cpu: '1', memory: '4Gi', pods: '110' });
  });

  it('honours a nodeSelector, and lets terminating pods count until they are gone', async () => {
    double = await startKubernetesDouble({
      kubelet: new ManualKubelet({ exitOnSigterm: false }),
      nodes: [
        { name: 'node-a', cpu: '1', memory: '1Gi', labels: { pool: 'bots' } },
        { name: 'node-b', cpu: '8', memory: '8Gi' },
      ],
    });
    const { core } = clientsOf(double);
    const selective = sized('selective', '800m', '512Mi');
    selective.spec!.nodeSelector = { pool: 'bots' };
    selective.spec!.terminationGracePeriodSeconds = 2;
    await core.createNamespacedPod({ namespace: 'meetbot', body: selective });
    expect(
      (await double.waitForPod('selective', (pod) => pod?.status?.phase === 'Running'))?.spec.nodeName,
    ).toBe('node-a');

    const follower = sized('follower', '800m', '512Mi');
    follower.spec!.nodeSelector = { pool: 'bots' };
    await core.deleteNamespacedPod({ name: 'selective', namespace: 'meetbot' });
    await core.createNamespacedPod({ namespace: 'meetbot', body: follower });
    const waiting = await double.waitForPod('follower', (pod) => scheduled(pod)?.status === 'False');
    expect(scheduled(waiting)?.message).toBe(
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.",
    );
    expect(double.pod('selective')?.metadata.deletionTimestamp).toBeDefined();
    const placed = await double.waitForPod('follower', (pod) => Boolean(pod?.spec.nodeName), {
      timeoutMs: 10_000,
    });
    expect(placed?.spec.nodeName).toBe('node-a');
    expect(double.pod('selective')).toBeUndefined();
  });
});
