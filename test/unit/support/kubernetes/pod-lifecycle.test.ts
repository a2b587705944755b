import { ApisApi, CustomObjectsApi } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { ManualKubelet } from '../../../support/kubernetes/manual-kubelet.js';
import type { Pod } from '../../../support/kubernetes/objects.js';
import { clientsOf, podManifest, refusal } from './clients.js';

const containerState = (pod: Pod | undefined) => pod?.status?.containerStatuses?.[0];

describe('the Kubernetes API double: pod lifecycle on the ManualKubelet', () => {
  let double: KubernetesDouble;
  let kubelet: ManualKubelet;

  beforeEach(async () => {
    kubelet = new ManualKubelet({ logText: (pod) => `log of ${pod.metadata.name}\n` });
    double = await startKubernetesDouble({ kubelet, restartBackOffMs: 50, kubeletRetryMs: 100 });
  });
  afterEach(() => double.close());

  it('goes Pending → Running → Succeeded or Failed with the container states and conditions a kubelet writes', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('ok') });
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('fails') });
    const running = await double.waitForPod('ok', (pod) => pod?.status?.phase === 'Running');
    expect(containerState(running)).toMatchObject({
      name: 'bot',
      ready: true,
      started: true,
      restartCount: 0,
    });
    expect(containerState(running)?.state?.running?.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(running?.status?.conditions?.map((condition) => `${condition.type}=${condition.status}`)).toEqual([
      'PodScheduled=True',
      'PodReadyToStartContainers=True',
      'Initialized=True',
      'ContainersReady=True',
      'Ready=True',
    ]);
    await double.waitForPod('fails', (pod) => pod?.status?.phase === 'Running');
    kubelet.exit('ok', 0);
    kubelet.exit('fails', 2);
    const succeeded = await double.waitForPod('ok', (pod) => pod?.status?.phase === 'Succeeded');
    expect(containerState(succeeded)?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
    const failed = await double.waitForPod('fails', (pod) => pod?.status?.phase === 'Failed');
    expect(containerState(failed)?.state?.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
    expect(failed?.status?.conditions?.find((condition) => condition.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PodCompleted',
    });
  });

  it('restarts a container of restartPolicy Always after a back-off, with restartCount, lastState and the previous log', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('again', { spec: { ...podManifest('x').spec!, restartPolicy: 'Always' } }),
    });
    await double.waitForPod('again', (pod) => pod?.status?.phase === 'Running');
    kubelet.appendLog('again', 'first run\n');
    kubelet.exit('again', 1);
    const restarted = await double.waitForPod(
      'again',
      (pod) => containerState(pod)?.restartCount === 1 && containerState(pod)?.state?.running !== undefined,
    );
    expect(restarted?.status?.phase).toBe('Running');
    expect(containerState(restarted)?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(await core.readNamespacedPodLog({ name: 'again', namespace: 'meetbot', previous: true })).toBe(
      'log of again\nfirst run\n',
    );
    expect(await core.readNamespacedPodLog({ name: 'again', namespace: 'meetbot' })).toBe('log of again\n');

    await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('onfailure', { spec: { ...podManifest('x').spec!, restartPolicy: 'OnFailure' } }),
    });
    await double.waitForPod('onfailure', (pod) => pod?.status?.phase === 'Running');
    kubelet.exit('onfailure', 0);
    await double.waitForPod('onfailure', (pod) => pod?.status?.phase === 'Succeeded');
  });

  it('waits for missing Secrets (ContainerCreating for a volume, CreateContainerConfigError for the environment) and starts once they exist', async () => {
    const { core } = clientsOf(double);
    const volume = podManifest('volume', {
      spec: {
        ...podManifest('x').spec!,
        volumes: [{ name: 'files', secret: { secretName: 'bot-files' } }],
      },
    });
    volume.spec!.containers[0]!.volumeMounts = [{ name: 'files', mountPath: '/run/files' }];
    const environment = podManifest('environment');
    environment.spec!.containers[0]!.env = [
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'bot-env', key: 'token' } } },
    ];
    await core.createNamespacedPod({ namespace: 'meetbot', body: volume });
    await core.createNamespacedPod({ namespace: 'meetbot', body: environment });

    const creating = await double.waitForPod(
      'volume',
      (pod) => containerState(pod)?.state?.waiting !== undefined,
    );
    expect(containerState(creating)?.state?.waiting).toEqual({ reason: 'ContainerCreating' });
    const misconfigured = await double.waitForPod(
      'environment',
      (pod) => containerState(pod)?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(containerState(misconfigured)?.state?.waiting?.message).toBe('secret "bot-env" not found');
    await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: { metadata: { name: 'bot-env' }, stringData: { other: 'x' } },
    });
    const noKey = await double.waitForPod(
      'environment',
      (pod) => containerState(pod)?.state?.waiting?.message !== 'secret "bot-env" not found',
    );
    expect(containerState(noKey)?.state?.waiting?.message).toBe(
      "couldn't find key token in Secret meetbot/bot-env",
    );

    await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: { metadata: { name: 'bot-files' }, stringData: { config: '{}' } },
    });
    await core.replaceNamespacedSecret({
      name: 'bot-env',
      namespace: 'meetbot',
      body: { metadata: { name: 'bot-env' }, stringData: { token: 't0k' } },
    });
    await double.waitForPod('volume', (pod) => pod?.status?.phase === 'Running');
    await double.waitForPod('environment', (pod) => pod?.status?.phase === 'Running');
    expect(kubelet.container('environment').environment.get('TOKEN')).toBe('t0k');
    expect(kubelet.container('volume').volumes).toContainEqual({
      name: 'files',
      kind: 'files',
      files: [{ path: 'config', content: Buffer.from('{}'), mode: 0o644 }],
    });
  });

  it('gives the container its environment as the kubelet makes it, and the service-account token unless told not to', async () => {
    const { core } = clientsOf(double);
    const manifest = podManifest('env');
    manifest.spec!.containers[0]!.env = [
      { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'GREETING', value: 'hello $(POD) on $(NODE), $$(POD) and $(UNKNOWN)' },
    ];
    manifest.spec!.containers[0]!.command = ['sh', '-c'];
    manifest.spec!.containers[0]!.args = ['echo $(GREETING)'];
    await core.createNamespacedPod({ namespace: 'meetbot', body: manifest });
    const created = await double.waitForPod('env', (pod) => pod?.status?.phase === 'Running');
    const container = kubelet.container('env');
    expect(container.environment.get('GREETING')).toBe('hello env on node-a, $(POD) and $(UNKNOWN)');
    expect(container.environment.get('KUBERNETES_SERVICE_HOST')).toBe('127.0.0.1');
    expect(container.environment.get('KUBERNETES_SERVICE_PORT')).toBe(new URL(double.url).port);
    expect(container.args).toEqual(['echo hello env on node-a, $(POD) and $(UNKNOWN)']);
    // The ServiceAccount admission's volume and mount, and its files.
    const tokenVolume = created?.spec.volumes?.find((volume) => volume.name.startsWith('kube-api-access-'));
    expect(tokenVolume).toBeDefined();
    expect(created?.spec.containers?.[0]?.volumeMounts).toContainEqual({
      name: tokenVolume?.name,
      readOnly: true,
      mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
    });
    const files = container.volumes.find((volume) => volume.name === tokenVolume?.name);
    expect(files?.kind === 'files' && files.files.map((file) => file.path)).toEqual([
      'token',
      'ca.crt',
      'namespace',
    ]);

    await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('no-token', {
        spec: { ...podManifest('x').spec!, automountServiceAccountToken: false },
      }),
    });
    const bare = await double.waitForPod('no-token', (pod) => pod?.status?.phase === 'Running');
    expect(bare?.spec.volumes ?? []).toEqual([]);
    expect(kubelet.container('no-token').volumes).toEqual([]);
  });

  it('refuses to start a container that would run as root under runAsNonRoot', async () => {
    const { core } = clientsOf(double);
    const manifest = podManifest('root');
    manifest.spec!.securityContext = { runAsNonRoot: true, runAsUser: 0 };
    await core.createNamespacedPod({ namespace: 'meetbot', body: manifest });
    const refused = await double.waitForPod(
      'root',
      (pod) => containerState(pod)?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(containerState(refused)?.state?.waiting?.message).toMatch(
      /^container's runAsUser breaks non-root policy \(pod: "root_meetbot\([0-9a-f-]+\)", container: bot\)$/,
    );
    expect(refused?.status?.phase).toBe('Pending');
  });

  it('serves pod metrics while metrics-server is there, and 404 (and no discovery entry) once it is not', async () => {
    const { core, metrics, config } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('measured') });
    await double.waitForPod('measured', (pod) => pod?.status?.phase === 'Running');
    kubelet.setUsage('measured', { cpu: '250m', memory: '300Mi' });
    const list = await metrics.getPodMetrics('meetbot');
    expect(list.items).toHaveLength(1);
    expect(list.items[0]?.containers).toEqual([
      { name: 'bot', usage: { cpu: '250000000n', memory: `${300 * 1024}Ki` } },
    ]);
    const custom = config.makeApiClient(CustomObjectsApi);
    const one = {
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      namespace: 'meetbot',
      plural: 'pods',
      name: 'measured',
    };
    expect(await custom.getNamespacedCustomObject(one)).toMatchObject({
      kind: 'PodMetrics',
      metadata: { name: 'measured' },
    });
    expect(await refusal(custom.getNamespacedCustomObject({ ...one, name: 'nope' }))).toMatchObject({
      code: 404,
      message: 'podmetrics.metrics.k8s.io "meetbot/nope" not found',
    });
    const apis = config.makeApiClient(ApisApi);
    expect((await apis.getAPIVersions()).groups.map((group) => group.name)).toContain('metrics.k8s.io');

    double.setMetricsAvailable(false);
    expect((await apis.getAPIVersions()).groups.map((group) => group.name)).not.toContain('metrics.k8s.io');
    expect(await refusal(custom.getNamespacedCustomObject(one))).toMatchObject({
      code: 404,
      reason: 'NotFound',
    });
    await expect(metrics.getPodMetrics('meetbot')).rejects.toMatchObject({ code: 404 });
  });

  it('names a pod from generateName, and stores nothing on a dry run', async () => {
    const { core } = clientsOf(double);
    const generated = await core.createNamespacedPod({
      namespace: 'meetbot',
      body: { ...podManifest('ignored'), metadata: { generateName: 'bot-' } },
    });
    expect(generated.metadata?.name).toMatch(/^bot-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const dry = await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('dry'),
      dryRun: 'All',
    });
    expect(dry.metadata?.name).toBe('dry');
    expect(double.pod('dry')).toBeUndefined();
  });

  it('answers an eviction with a Success Status, 201 on the wire', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('raw') });
    await double.waitForPod('raw', (pod) => pod?.status?.phase === 'Running');
    const response = await fetch(`${double.url}/api/v1/namespaces/meetbot/pods/raw/eviction`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${double.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'raw' } }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 201,
    });
  });
});
