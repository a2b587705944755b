import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { ManualKubelet } from '../../../support/kubernetes/manual-kubelet.js';
import type { Pod } from '../../../support/kubernetes/objects.js';
import { clientsOf, collectWatch, eventually, podManifest, refusal, type WatchEvent } from './clients.js';

const disruption = (pod: Pod | WatchEvent['object'] | undefined) =>
  ((pod as Pod | undefined)?.status?.conditions ?? []).find(
    (condition) => condition.type === 'DisruptionTarget',
  );

describe('the Kubernetes API double: disruptions', () => {
  let double: KubernetesDouble;
  let kubelet: ManualKubelet;

  beforeEach(async () => {
    kubelet = new ManualKubelet();
    double = await startKubernetesDouble({
      kubelet,
      nodes: [
        { name: 'node-a', cpu: '4', memory: '8Gi' },
        { name: 'node-b', cpu: '4', memory: '8Gi' },
      ],
    });
  });
  afterEach(() => double.close());

  async function running(name: string, labels: Record<string, string> = { app: 'meetbot' }): Promise<Pod> {
    await clientsOf(double).core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest(name, { labels }),
    });
    return (await double.waitForPod(name, (pod) => pod?.status?.phase === 'Running'))!;
  }

  async function lastStateOf(name: string, act: () => Promise<unknown> | unknown) {
    const { events, stop } = await collectWatch(clientsOf(double).watch, '/api/v1/namespaces/meetbot/pods', {
      fieldSelector: `metadata.name=${name}`,
      resourceVersion: double.resourceVersion(),
    });
    await act();
    const deleted = await eventually(() => events.find((event) => event.type === 'DELETED'));
    stop();
    return { events, deleted };
  }

  it('evicts through the Eviction API: DisruptionTarget EvictionByEvictionAPI, then a graceful delete', async () => {
    await running('evicted');
    const { core } = clientsOf(double);
    const { events, deleted } = await lastStateOf('evicted', async () => {
      const answer = await core.createNamespacedPodEviction({
        name: 'evicted',
        namespace: 'meetbot',
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: 'evicted', namespace: 'meetbot' },
        },
      });
      // A Success Status with code 201 on the wire; the client reads it as its Eviction model.
      expect(answer.apiVersion).toBe('v1');
    });
    const marked = events.find((event) => disruption(event.object));
    expect(disruption(marked?.object)).toMatchObject({
      status: 'True',
      reason: 'EvictionByEvictionAPI',
      message: 'Eviction API: evicting',
    });
    expect(
      events.some(
        (event) =>
          event.type === 'MODIFIED' &&
          (event.object.metadata as { deletionTimestamp?: string }).deletionTimestamp,
      ),
    ).toBe(true);
    expect(disruption(deleted.object)?.reason).toBe('EvictionByEvictionAPI');
  });

  it('refuses an eviction that would break a PodDisruptionBudget with 429, and allows it while the budget holds', async () => {
    await running('one', { app: 'api' });
    await running('two', { app: 'api' });
    double.addDisruptionBudget({
      metadata: { name: 'api' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'api' } } },
    });
    const { core } = clientsOf(double);
    const evict = (name: string) =>
      core.createNamespacedPodEviction({ name, namespace: 'meetbot', body: { metadata: { name } } });
    await evict('one');
    const refused = await refusal(evict('two'));
    expect(refused).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: {
        causes: [
          {
            reason: 'DisruptionBudget',
            message: 'The disruption budget api needs 1 healthy pods and has 1 currently',
          },
        ],
      },
      code: 429,
    });
    expect(double.pod('two')?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('preempts: DisruptionTarget PreemptionByScheduler, then deleted with its own grace', async () => {
    await running('victim');
    const { events, deleted } = await lastStateOf('victim', () => double.preempt('victim'));
    expect(disruption(deleted.object)).toMatchObject({
      status: 'True',
      reason: 'PreemptionByScheduler',
      message: 'default-scheduler: preempting to accommodate a higher priority pod',
    });
    const graceful = events.find(
      (event) =>
        (event.object.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds,
    );
    expect(
      (graceful?.object.metadata as { deletionGracePeriodSeconds?: number } | undefined)
        ?.deletionGracePeriodSeconds,
    ).toBe(30);
  });

  it('loses a node: its containers killed, its pods marked DeletionByTaintManager and deleted, new pods go elsewhere', async () => {
    const pod = await running('on-a');
    expect(pod.spec.nodeName).toBe('node-a');
    const container = kubelet.container('on-a');
    const { deleted } = await lastStateOf('on-a', () => double.loseNode('node-a'));
    expect(disruption(deleted.object)).toMatchObject({
      status: 'True',
      reason: 'DeletionByTaintManager',
      message: 'Taint manager: deleting due to NoExecute taint',
    });
    // Nothing was heard from the lost node's kubelet: the container's state is its last report.
    expect((deleted.object as Pod).status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(container.running).toBe(false);
    expect(double.nodes().map((node) => node.metadata.name)).toEqual(['node-b']);
    expect((await running('after')).spec.nodeName).toBe('node-b');
  });

  it('keeps the pods of a lost node Terminating while the node object stays', async () => {
    await running('stays');
    await double.loseNode('node-a', { keepNode: true });
    const pod = double.pod('stays');
    expect(pod?.metadata.deletionTimestamp).toBeDefined();
    expect(disruption(pod)?.reason).toBe('DeletionByTaintManager');
    const node = double.nodes().find((candidate) => candidate.metadata.name === 'node-a');
    expect((node?.spec as { taints?: unknown[] } | undefined)?.taints).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(double.pod('stays')).toBeDefined();
  });

  it('evicts for node pressure: the container killed, the pod kept Failed with reason Evicted', async () => {
    await running('pressed');
    await double.kubeletEvict('pressed', 'The node was low on resource: memory.');
    const pod = await double.waitForPod('pressed', (current) => current?.status?.phase === 'Failed');
    expect(pod?.status).toMatchObject({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'The node was low on resource: memory.',
      containerStatuses: [{ state: { terminated: { exitCode: 143 } } }],
    });
    expect(disruption(pod)).toMatchObject({
      status: 'True',
      reason: 'TerminationByKubelet',
      message: 'The node was low on resource: memory.',
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(double.pod('pressed')).toBeDefined();
  });
});
