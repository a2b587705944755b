import { PassThrough } from 'node:stream';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { ManualKubelet } from '../../../support/kubernetes/manual-kubelet.js';
import { clientsOf, collectWatch, eventually, podManifest, refusal } from './clients.js';

describe('the Kubernetes API double: pods through @kubernetes/client-node', () => {
  let double: KubernetesDouble;
  let kubelet: ManualKubelet;

  beforeEach(async () => {
    kubelet = new ManualKubelet({ logText: 'one\ntwo\nthree\n' });
    double = await startKubernetesDouble({ kubelet, namespaces: ['meetbot', 'other'] });
  });
  afterEach(() => double.close());

  it('creates a pod with the server fields filled, Pending, and answers 409 AlreadyExists for its name again', async () => {
    const { core } = clientsOf(double);
    const created = await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('bot-1') });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.status?.phase).toBe('Pending');
    expect(created.spec?.nodeName).toBeUndefined();
    // Defaults the API server adds.
    expect(created.spec?.terminationGracePeriodSeconds).toBe(30);
    expect(created.spec?.schedulerName).toBe('default-scheduler');
    expect(created.spec?.containers[0]?.imagePullPolicy).toBe('Always');
    expect(created.spec?.tolerations?.map((toleration) => toleration.key)).toEqual([
      'node.kubernetes.io/not-ready',
      'node.kubernetes.io/unreachable',
    ]);

    const status = await refusal(
      core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('bot-1') }),
    );
    expect(status).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'pods "bot-1" already exists',
      reason: 'AlreadyExists',
      details: { name: 'bot-1', kind: 'pods' },
      code: 409,
    });
  });

  it('answers 404 NotFound as a Status, and for a namespace that does not exist', async () => {
    const { core } = clientsOf(double);
    expect(await refusal(core.readNamespacedPod({ name: 'nope', namespace: 'meetbot' }))).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      message: 'pods "nope" not found',
      reason: 'NotFound',
      code: 404,
    });
    expect(
      await refusal(core.createNamespacedPod({ namespace: 'absent', body: podManifest('x') })),
    ).toMatchObject({
      message: 'namespaces "absent" not found',
      code: 404,
    });
  });

  it('refuses a malformed pod with 422 Invalid and the fields at fault', async () => {
    const { core } = clientsOf(double);
    const body = podManifest('Bad_Name', { labels: { app: 'not valid!' } });
    body.spec!.containers = [{ name: 'bot' }];
    const status = await refusal(core.createNamespacedPod({ namespace: 'meetbot', body }));
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toMatch(/^Pod "Bad_Name" is invalid: \[/);
    expect(status.details?.causes?.map((cause) => cause.field)).toEqual([
      'metadata.name',
      'metadata.labels',
      'spec.containers[0].image',
    ]);
    expect(status.message).toContain(
      `metadata.labels: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
    expect(status.message).toContain('spec.containers[0].image: Required value');

    const noContainers = await refusal(
      core.createNamespacedPod({
        namespace: 'meetbot',
        body: { metadata: { name: 'empty' }, spec: { containers: [] } },
      }),
    );
    expect(noContainers.message).toBe('Pod "empty" is invalid: spec.containers: Required value');
    const longLabel = await refusal(
      core.createNamespacedPod({
        namespace: 'meetbot',
        body: podManifest('long', { labels: { a: 'x'.repeat(64) } }),
      }),
    );
    expect(longLabel.message).toContain('must be no more than 63 characters');
  });

  it('lists with label selectors (=, !=, in, notin, exists, !exists) and field selectors, with the list resourceVersion', async () => {
    const { core } = clientsOf(double);
    const labelled = [
      ['a', { app: 'meetbot', tier: 'bot', worker: 'w1' }],
      ['b', { app: 'meetbot', tier: 'bot', worker: 'w2' }],
      ['c', { app: 'meetbot', tier: 'api' }],
      ['d', { app: 'other' }],
    ] as const;
    for (const [name, labels] of labelled)
      await core.createNamespacedPod({
        namespace: 'meetbot',
        body: podManifest(name, { labels: { ...labels } }),
      });
    await core.createNamespacedPod({ namespace: 'other', body: podManifest('e') });
    const names = async (query: { labelSelector?: string; fieldSelector?: string }) =>
      (await core.listNamespacedPod({ namespace: 'meetbot', ...query })).items.map(
        (pod) => pod.metadata?.name,
      );

    expect(await names({ labelSelector: 'app=meetbot' })).toEqual(['a', 'b', 'c']);
    expect(await names({ labelSelector: 'app==meetbot,tier=bot' })).toEqual(['a', 'b']);
    expect(await names({ labelSelector: 'tier!=bot' })).toEqual(['c', 'd']);
    expect(await names({ labelSelector: 'worker in (w2, w3)' })).toEqual(['b']);
    expect(await names({ labelSelector: 'worker notin (w2)' })).toEqual(['a', 'c', 'd']);
    expect(await names({ labelSelector: 'worker' })).toEqual(['a', 'b']);
    expect(await names({ labelSelector: '!worker' })).toEqual(['c', 'd']);
    expect(await names({ fieldSelector: 'metadata.name=c' })).toEqual(['c']);
    expect(await names({ fieldSelector: 'metadata.name!=c', labelSelector: 'app=meetbot' })).toEqual([
      'a',
      'b',
    ]);

    const list = await core.listNamespacedPod({ namespace: 'meetbot' });
    expect(list.kind).toBe('PodList');
    expect(Number(list.metadata?.resourceVersion)).toBeGreaterThanOrEqual(
      Math.max(...list.items.map((pod) => Number(pod.metadata?.resourceVersion))),
    );
    expect((await core.listPodForAllNamespaces()).items.map((pod) => pod.metadata?.name)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);

    expect(
      await refusal(core.listNamespacedPod({ namespace: 'meetbot', labelSelector: 'worker in (' })),
    ).toMatchObject({
      code: 400,
      reason: 'BadRequest',
    });
    expect(
      await refusal(core.listNamespacedPod({ namespace: 'meetbot', fieldSelector: 'spec.image=x' })),
    ).toMatchObject({
      code: 400,
      message: 'field label not supported: spec.image',
    });
  });

  it('selects on status.phase', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('runs') });
    await double.waitForPod('runs', (pod) => pod?.status?.phase === 'Running');
    await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('waits', { spec: { ...podManifest('x').spec!, schedulerName: 'another-scheduler' } }),
    });
    const running = await core.listNamespacedPod({
      namespace: 'meetbot',
      fieldSelector: 'status.phase=Running',
    });
    expect(running.items.map((pod) => pod.metadata?.name)).toEqual(['runs']);
    const pending = await core.listNamespacedPod({
      namespace: 'meetbot',
      fieldSelector: 'status.phase=Pending',
    });
    expect(pending.items.map((pod) => pod.metadata?.name)).toEqual(['waits']);
  });

  it('patches labels with the client default (JSON patch), merge and strategic merge patches, and keeps the status', async () => {
    const { core } = clientsOf(double);
    const created = await core.createNamespacedPod({
      namespace: 'meetbot',
      body: podManifest('p', { labels: { app: 'meetbot', owner: 'w1' } }),
    });
    const jsonPatched = await core.patchNamespacedPod({
      name: 'p',
      namespace: 'meetbot',
      body: [
        { op: 'replace', path: '/metadata/labels/owner', value: 'w2' },
        { op: 'add', path: '/metadata/labels/meetbot.io~1meeting', value: '42' },
      ],
    });
    expect(jsonPatched.metadata?.labels).toEqual({ app: 'meetbot', owner: 'w2', 'meetbot.io/meeting': '42' });
    expect(Number(jsonPatched.metadata?.resourceVersion)).toBeGreaterThan(
      Number(created.metadata?.resourceVersion),
    );

    const merged = await core.patchNamespacedPod(
      {
        name: 'p',
        namespace: 'meetbot',
        body: { metadata: { labels: { owner: null, extra: 'x' }, annotations: { note: 'n' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merged.metadata?.labels).toEqual({ app: 'meetbot', 'meetbot.io/meeting': '42', extra: 'x' });
    expect(merged.metadata?.annotations).toEqual({ note: 'n' });

    const strategic = await core.patchNamespacedPod(
      {
        name: 'p',
        namespace: 'meetbot',
        body: { metadata: { labels: { strategic: 'yes' } }, status: { phase: 'Succeeded' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(strategic.metadata?.labels?.strategic).toBe('yes');
    // A pod's status changes only through pods/status.
    expect(strategic.status?.phase).not.toBe('Succeeded');

    const unchanged = await core.patchNamespacedPod(
      { name: 'p', namespace: 'meetbot', body: { metadata: { labels: { strategic: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const current = await core.readNamespacedPod({ name: 'p', namespace: 'meetbot' });
    expect(unchanged.metadata?.resourceVersion).toBe(current.metadata?.resourceVersion);

    const conflict = await refusal(
      core.patchNamespacedPod(
        { name: 'p', namespace: 'meetbot', body: { metadata: { resourceVersion: '1', labels: { x: 'y' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(conflict).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(conflict.message).toBe(
      'Operation cannot be fulfilled on pods "p": the object has been modified; please apply your changes to the latest version and try again',
    );

    const immutable = await refusal(
      core.patchNamespacedPod({
        name: 'p',
        namespace: 'meetbot',
        body: [{ op: 'replace', path: '/spec/restartPolicy', value: 'Always' }],
      }),
    );
    expect(immutable.code).toBe(422);
    expect(immutable.message).toContain('spec: Forbidden: pod updates may not change fields other than');

    const failedTest = await refusal(
      core.patchNamespacedPod({
        name: 'p',
        namespace: 'meetbot',
        body: [{ op: 'test', path: '/metadata/labels/app', value: 'no' }],
      }),
    );
    expect(failedTest.code).toBe(422);
  });

  it('deletes a running pod with grace: deletionTimestamp first, SIGTERM, then the object goes', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('g') });
    await double.waitForPod('g', (pod) => pod?.status?.phase === 'Running');
    const before = Date.now();
    const answer = await core.deleteNamespacedPod({
      name: 'g',
      namespace: 'meetbot',
      gracePeriodSeconds: 20,
    });
    expect(answer.metadata?.deletionGracePeriodSeconds).toBe(20);
    const deadline = answer.metadata?.deletionTimestamp as unknown as Date;
    expect(deadline.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 19_000);
    // The ManualKubelet's container exits on SIGTERM: the pod ends, then is removed.
    await double.waitForPod('g', (pod) => pod === undefined);
    expect(await refusal(core.readNamespacedPod({ name: 'g', namespace: 'meetbot' }))).toMatchObject({
      code: 404,
    });
  });

  it('waits out the grace period of a container that ignores SIGTERM, and takes a shorter one from a second delete', async () => {
    await double.close();
    kubelet = new ManualKubelet({ exitOnSigterm: false });
    double = await startKubernetesDouble({ kubelet });
    const { core, watch } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('slow') });
    await double.waitForPod('slow', (pod) => pod?.status?.phase === 'Running');
    // DeleteOptions in the body, as kubectl sends them.
    await core.deleteNamespacedPod({ name: 'slow', namespace: 'meetbot', body: { gracePeriodSeconds: 30 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(double.pod('slow')?.metadata.deletionTimestamp).toBeDefined();
    const { events, stop } = await collectWatch(watch, '/api/v1/namespaces/meetbot/pods', {
      fieldSelector: 'metadata.name=slow',
      resourceVersion: double.resourceVersion(),
    });
    const started = Date.now();
    const shortened = await core.deleteNamespacedPod({
      name: 'slow',
      namespace: 'meetbot',
      gracePeriodSeconds: 2,
    });
    expect(shortened.metadata?.deletionGracePeriodSeconds).toBe(2);
    const deleted = await eventually(() => events.find((event) => event.type === 'DELETED'));
    stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    // The DELETED event carries the pod's last state: ended by SIGKILL once the grace was over.
    expect(deleted.object).toMatchObject({
      status: {
        phase: 'Failed',
        containerStatuses: [{ state: { terminated: { exitCode: 137, reason: 'Error' } } }],
      },
    });
  });

  it('deletes a pod no node took at once, and answers the deleted pod', async () => {
    const { core } = clientsOf(double);
    double.cordon('node-a');
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('pending') });
    const answer = await core.deleteNamespacedPod({ name: 'pending', namespace: 'meetbot' });
    expect(answer.metadata?.name).toBe('pending');
    expect(answer.metadata?.deletionGracePeriodSeconds).toBe(0);
    expect(double.pod('pending')).toBeUndefined();
  });

  it('serves logs with tailLines, and refuses those of a container that has not started', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('talks') });
    await double.waitForPod('talks', (pod) => pod?.status?.phase === 'Running');
    expect(await core.readNamespacedPodLog({ name: 'talks', namespace: 'meetbot' })).toBe(
      'one\ntwo\nthree\n',
    );
    expect(await core.readNamespacedPodLog({ name: 'talks', namespace: 'meetbot', tailLines: 2 })).toBe(
      'two\nthree\n',
    );
    // The client's Log class (a stream) too.
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => sink.on('end', resolve));
    await clientsOf(double).log.log('meetbot', 'talks', 'bot', sink, { tailLines: 1 });
    await ended;
    expect(Buffer.concat(chunks).toString()).toBe('three\n');
    expect(
      await refusal(core.readNamespacedPodLog({ name: 'talks', namespace: 'meetbot', container: 'sidecar' })),
    ).toMatchObject({
      code: 400,
      message: 'container sidecar is not valid for pod talks',
    });
    kubelet.refuseStart('stuck', 'ErrImagePull', 'pull access denied');
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('stuck') });
    await double.waitForPod(
      'stuck',
      (pod) => pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull',
    );
    expect(await refusal(core.readNamespacedPodLog({ name: 'stuck', namespace: 'meetbot' }))).toMatchObject({
      code: 400,
      message: 'container "bot" in pod "stuck" is waiting to start: ErrImagePull',
    });
  });

  it('answers 401 without the bearer token', async () => {
    const response = await fetch(`${double.url}/api/v1/namespaces/meetbot/pods`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const wrong = await fetch(`${double.url}/api/v1/namespaces/meetbot/pods`, {
      headers: { Authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
  });

  it('writes a kubeconfig file the client loads', async () => {
    const { KubeConfig, CoreV1Api } = await import('@kubernetes/client-node');
    const config = new KubeConfig();
    config.loadFromString(double.kubeconfigYaml());
    expect(config.getCurrentCluster()?.server).toBe(double.url);
    const list = await config.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'meetbot' });
    expect(list.items).toEqual([]);
  });
});
