import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { ManualKubelet } from '../../../support/kubernetes/manual-kubelet.js';
import { clientsOf, collectWatch, eventually, podManifest } from './clients.js';

const PODS = '/api/v1/namespaces/meetbot/pods';
const PODS_URL = (double: KubernetesDouble) => `${double.url}${PODS}`;

describe('the Kubernetes API double: watches through the client Watch class', () => {
  let double: KubernetesDouble;
  let kubelet: ManualKubelet;

  beforeEach(async () => {
    kubelet = new ManualKubelet();
    double = await startKubernetesDouble({ kubelet, bookmarkIntervalMs: 100 });
  });
  afterEach(() => double.close());

  it('streams ADDED, MODIFIED and DELETED in order, with rising resourceVersions', async () => {
    const { core, watch } = clientsOf(double);
    const list = await core.listNamespacedPod({ namespace: 'meetbot' });
    const { events, stop } = await collectWatch(watch, PODS, {
      resourceVersion: list.metadata?.resourceVersion,
    });
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('w') });
    await double.waitForPod('w', (pod) => pod?.status?.phase === 'Running');
    kubelet.exit('w', 0);
    await double.waitForPod('w', (pod) => pod?.status?.phase === 'Succeeded');
    await core.deleteNamespacedPod({ name: 'w', namespace: 'meetbot' });
    await eventually(() => events.some((event) => event.type === 'DELETED'));
    stop();

    expect(events[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Pod', status: { phase: 'Pending' } } });
    expect(events.at(-1)?.type).toBe('DELETED');
    expect(events.slice(1, -1).every((event) => event.type === 'MODIFIED')).toBe(true);
    const phases = events.map((event) => (event.object.status as { phase?: string } | undefined)?.phase);
    expect(phases.indexOf('Running')).toBeGreaterThan(0);
    expect(phases.indexOf('Succeeded')).toBeGreaterThan(phases.indexOf('Running'));
    const versions = events.map((event) => Number(event.object.metadata?.resourceVersion));
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    // Scheduling: bound to the node with PodScheduled=True before the kubelet's first status.
    const bound = events.find((event) => (event.object.spec as { nodeName?: string }).nodeName);
    expect(bound?.object.status).toMatchObject({ conditions: [{ type: 'PodScheduled', status: 'True' }] });
  });

  it('starts without a resourceVersion with a synthetic ADDED for each existing object', async () => {
    const { core, watch } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('a') });
    await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('b', { labels: { app: 'other' } }),
    });
    const { events, stop } = await collectWatch(watch, PODS, { labelSelector: 'app=meetbot' });
    await eventually(() => events.length >= 1);
    stop();
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    expect(events.map((event) => event.object.metadata?.name)).not.toContain('b');
  });

  it('resumes from a resourceVersion with exactly the changes after it', async () => {
    const { core, watch } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('r1') });
    const mark = double.resourceVersion();
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('r2') });
    await core.deleteNamespacedPod({ name: 'r1', namespace: 'meetbot', gracePeriodSeconds: 0 });
    const { events, stop } = await collectWatch(watch, PODS, { resourceVersion: mark });
    await eventually(() =>
      events.some((event) => event.type === 'DELETED' && event.object.metadata?.name === 'r1'),
    );
    stop();
    expect(events.every((event) => Number(event.object.metadata?.resourceVersion) > Number(mark))).toBe(true);
    expect(events.find((event) => event.type === 'ADDED')?.object.metadata?.name).toBe('r2');
    expect(events.some((event) => event.type === 'ADDED' && event.object.metadata?.name === 'r1')).toBe(
      false,
    );
  });

  it('answers a resourceVersion older than its history with an ERROR event holding 410 Expired', async () => {
    const { core, watch } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('old') });
    const mark = double.resourceVersion();
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('new') });
    double.compactHistory();
    const { events, ended } = await collectWatch(watch, PODS, { resourceVersion: mark });
    await ended;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 },
    });
    expect(events[0]?.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    // From the version the compaction left, a watch works again.
    const fresh = await collectWatch(watch, PODS, { resourceVersion: double.resourceVersion() });
    await core.deleteNamespacedPod({ name: 'new', namespace: 'meetbot', gracePeriodSeconds: 0 });
    await eventually(() => fresh.events.some((event) => event.type === 'DELETED'));
    fresh.stop();
  });

  it('sends DELETED when an object stops matching the selector, and ADDED when it starts', async () => {
    const { core, watch } = clientsOf(double);
    await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('m', { labels: { owner: 'w1' } }),
    });
    const { events, stop } = await collectWatch(watch, PODS, {
      labelSelector: 'owner=w1',
      resourceVersion: double.resourceVersion(),
    });
    const relabel = (owner: string) =>
      core.patchNamespacedPod(
        { name: 'm', namespace: 'meetbot', body: { metadata: { labels: { owner } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    await relabel('w2');
    await relabel('w1');
    await eventually(() => events.filter((event) => ['ADDED', 'DELETED'].includes(event.type)).length >= 2);
    stop();
    const turns = events.filter((event) => ['ADDED', 'DELETED'].includes(event.type));
    expect(turns.map((event) => event.type)).toEqual(['DELETED', 'ADDED']);
    // The DELETED event shows the object as it last matched, at the change's resourceVersion.
    expect(turns[0]?.object.metadata).toMatchObject({ labels: { owner: 'w1' } });
  });

  it('sends bookmarks with the latest resourceVersion when asked', async () => {
    const { core, watch } = clientsOf(double);
    const { events, stop } = await collectWatch(watch, PODS, {
      labelSelector: 'app=none',
      allowWatchBookmarks: true,
      resourceVersion: double.resourceVersion(),
    });
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('unseen') });
    const version = double.resourceVersion();
    const bookmark = await eventually(() =>
      events.find(
        (event) =>
          event.type === 'BOOKMARK' && Number(event.object.metadata?.resourceVersion) >= Number(version),
      ),
    );
    stop();
    expect(bookmark.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1' });
    expect(events.some((event) => event.type === 'ADDED')).toBe(false);
  });

  it('ends every open watch on dropWatches, and the client resumes without losing a change', async () => {
    const { core, watch } = clientsOf(double);
    const first = await collectWatch(watch, PODS, { resourceVersion: double.resourceVersion() });
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('d1') });
    await eventually(() => first.events.length >= 1);
    expect(double.openWatches()).toBe(1);
    double.dropWatches();
    expect(await first.ended).toBeNull();
    const last = first.events.at(-1)?.object.metadata?.resourceVersion;
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('d2') });
    const resumed = await collectWatch(watch, PODS, { resourceVersion: last });
    await eventually(() => resumed.events.some((event) => event.object.metadata?.name === 'd2'));
    resumed.stop();
  });

  it('serves ?watch=1 as newline-delimited JSON events over one 200 response', async () => {
    const { core } = clientsOf(double);
    const abort = new AbortController();
    const response = await fetch(`${PODS_URL(double)}?watch=1&resourceVersion=${double.resourceVersion()}`, {
      headers: { Authorization: `Bearer ${double.token}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('raw') });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({
      type: 'ADDED',
      object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'raw' } },
    });
  });

  it('watches one object through a metadata.name field selector, and ends at timeoutSeconds', async () => {
    const { core, watch } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('one') });
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('two') });
    const { events, ended } = await collectWatch(watch, PODS, {
      fieldSelector: 'metadata.name=two',
      timeoutSeconds: 1,
    });
    await ended;
    expect(new Set(events.map((event) => event.object.metadata?.name))).toEqual(new Set(['two']));
  });
});
