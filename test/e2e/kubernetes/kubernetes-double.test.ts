import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, Metrics, type V1Pod, type V1PodSpec } from '@kubernetes/client-node';
import Docker from 'dockerode';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BOT_IMAGE } from '../../support/bot-container.js';
import { DOUBLE_CONTAINER_LABEL } from '../../support/kubernetes/docker-container-options.js';
import { DockerKubelet } from '../../support/kubernetes/docker-kubelet.js';
import { type KubernetesDouble, startKubernetesDouble } from '../../support/kubernetes/kubernetes-double.js';
import { ensureBotImage } from '../../support/stack.js';

/**
 * The Kubernetes API double with its DockerKubelet: pods run as real containers of the bot image on
 * the local engine, driven through @kubernetes/client-node as the Kubernetes runtime drives them.
 * Each check waits by polling the API (the machine may be busy), with generous deadlines.
 */
const HOW_TO_START =
  'Start the Docker engine with `bash scripts/build-bot-image.sh` (it runs `dockerd --iptables=false ' +
  '--bridge=none` when none runs; needs root), or point DOCKER_HOST at one.';
const NAMESPACE = 'meetbot';
const BOT_USER = 10001;
const WAIT_MS = 90_000;

const docker = new Docker();
let double: KubernetesDouble;
let core: CoreV1Api;
let seccompDirectory: string;

beforeAll(async () => {
  try {
    await docker.ping();
  } catch (error) {
    throw new Error(`the Docker engine does not answer (${(error as Error).message}). ${HOW_TO_START}`);
  }
  await ensureBotImage();
  seccompDirectory = mkdtempSync(join(tmpdir(), 'seccomp-profiles-'));
  // A Localhost profile as a node keeps it under its kubelet's seccomp directory.
  writeFileSync(
    join(seccompDirectory, 'allow-all.json'),
    JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW' }),
  );
  double = await startKubernetesDouble({
    namespaces: [NAMESPACE],
    nodes: [{ name: 'node-a', cpu: '2', memory: '4Gi' }],
    kubelet: new DockerKubelet({ docker, seccompDirectory }),
  });
  core = double.kubeConfig().makeApiClient(CoreV1Api);
}, 600_000);

/** A retried test starts without the pods and Secrets of its earlier try (their names would be taken). */
beforeEach(async () => {
  const admin = double.kubeConfig({ admin: true }).makeApiClient(CoreV1Api);
  for (const existing of double.pods(NAMESPACE))
    await admin
      .deleteNamespacedPod({
        name: existing.metadata.name ?? '',
        namespace: NAMESPACE,
        gracePeriodSeconds: 0,
      })
      .catch(() => undefined);
  const secrets = await admin.listNamespacedSecret({ namespace: NAMESPACE });
  for (const secret of secrets.items)
    await admin
      .deleteNamespacedSecret({ name: secret.metadata?.name ?? '', namespace: NAMESPACE })
      .catch(() => undefined);
  await expect.poll(() => double.pods(NAMESPACE).length, { timeout: WAIT_MS }).toBe(0);
}, WAIT_MS + 10_000);

afterAll(async () => {
  await double?.close();
  if (seccompDirectory) rmSync(seccompDirectory, { recursive: true, force: true });
});

/** The bot pod's containment as the runtime sets it, around a shell command. */
function pod(name: string, script: string, spec: Partial<V1PodSpec> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'double-e2e' } },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 5,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: BOT_USER,
        runAsGroup: BOT_USER,
        fsGroup: BOT_USER,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: 'bot',
          image: BOT_IMAGE,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', script],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
          securityContext: {
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            readOnlyRootFilesystem: true,
          },
        },
      ],
      ...spec,
    },
  };
}

async function readPod(name: string): Promise<V1Pod | undefined> {
  try {
    return await core.readNamespacedPod({ name, namespace: NAMESPACE });
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** Polls the API until `until` holds for the pod, and answers it. */
async function waitFor(
  name: string,
  what: string,
  until: (pod: V1Pod | undefined) => boolean,
): Promise<V1Pod | undefined> {
  const deadline = Date.now() + WAIT_MS;
  let last: V1Pod | undefined;
  for (;;) {
    last = await readPod(name);
    if (until(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`pod ${name} never ${what}; its status: ${JSON.stringify(last?.status ?? 'gone')}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const terminated = (pod: V1Pod | undefined) => pod?.status?.containerStatuses?.[0]?.state?.terminated;
const waiting = (pod: V1Pod | undefined) => pod?.status?.containerStatuses?.[0]?.state?.waiting;

async function logsUntil(name: string, marker: string): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const text = await core.readNamespacedPodLog({ name, namespace: NAMESPACE }).catch(() => '');
    if (text.includes(marker)) return text;
    if (Date.now() > deadline) throw new Error(`the log of ${name} never showed ${marker}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('the Kubernetes API double with the DockerKubelet', () => {
  it('runs a pod as a container with its secret files, environment and containment, and serves its log', async () => {
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: { metadata: { name: 'files' }, stringData: { x: 'the secret value', 'config.json': '{"a":1}' } },
    });
    const script = [
      'echo hello',
      'cat /run/s/x; echo',
      'stat -L -c "mode=%a uid=%u gid=%g" /run/s/x',
      'cat /app/config.json; echo',
      'echo "pod=$POD_NAME ns=$POD_NAMESPACE from-secret=$FROM_SECRET host=$KUBERNETES_SERVICE_HOST"',
      'echo "uid=$(id -u) groups=$(id -G)"',
      'grep -E "^(NoNewPrivs|Seccomp|CapEff):" /proc/self/status | tr -s "\\t " " "',
      'touch /rootfs-write 2>/dev/null && echo rootfs=writable || echo rootfs=read-only',
      'df -k /dev/shm | tail -1 | tr -s " " | cut -d" " -f2 | sed "s/^/shm-kib=/"',
      'test -e /var/run/secrets/kubernetes.io/serviceaccount/token && echo token=mounted || echo token=absent',
      'echo ready',
      'sleep 60',
    ].join('; ');
    const body = pod('runs', script, {
      volumes: [
        { name: 'files', secret: { secretName: 'files', defaultMode: 0o400 } },
        { name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '96Mi' } },
      ],
    });
    const container = body.spec!.containers[0]!;
    container.env = [
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'files', key: 'x' } } },
    ];
    container.volumeMounts = [
      { name: 'files', mountPath: '/run/s', readOnly: true },
      // One key by itself, as the Kubernetes runtime mounts the bot's files.
      { name: 'files', mountPath: '/app/config.json', subPath: 'config.json', readOnly: true },
      { name: 'dshm', mountPath: '/dev/shm' },
    ];
    await core.createNamespacedPod({ namespace: NAMESPACE, body });

    const running = await waitFor('runs', 'ran', (current) => current?.status?.phase === 'Running');
    expect(running?.spec?.nodeName).toBe('node-a');
    expect(running?.status).toMatchObject({ podIP: '127.0.0.1', hostIP: '127.0.0.1' });
    const state = running?.status?.containerStatuses?.[0];
    expect(state?.state?.running?.startedAt).toBeInstanceOf(Date);
    expect(state?.containerID).toMatch(/^docker:\/\/[0-9a-f]{64}$/);
    expect(state?.ready).toBe(true);

    const log = await logsUntil('runs', 'ready');
    const lines = log.split('\n');
    expect(lines[0]).toBe('hello');
    expect(log).toContain('the secret value\n');
    // defaultMode 0400 with an fsGroup: the kubelet adds the group's read bit and gives the file to the group.
    expect(log).toContain(`mode=440 uid=0 gid=${BOT_USER}`);
    expect(log).toContain('{"a":1}\n');
    expect(log).toContain('pod=runs ns=meetbot from-secret=the secret value host=127.0.0.1');
    expect(log).toMatch(new RegExp(`uid=${BOT_USER} groups=${BOT_USER}( |$)`, 'm'));
    expect(log).toContain('NoNewPrivs: 1');
    expect(log).toContain('Seccomp: 2');
    expect(log).toContain('CapEff: 0000000000000000');
    expect(log).toContain('rootfs=read-only');
    expect(log).toContain(`shm-kib=${96 * 1024}`);
    expect(log).toContain('token=absent');
    expect(await core.readNamespacedPodLog({ name: 'runs', namespace: NAMESPACE, tailLines: 2 })).toBe(
      'token=absent\nready\n',
    );

    // The metrics API, from the engine's stats.
    const metrics = await new Metrics(double.kubeConfig()).getPodMetrics(NAMESPACE);
    const usage = metrics.items.find((item) => item.metadata.name === 'runs')?.containers[0]?.usage;
    expect(usage?.cpu).toMatch(/^\d+n$/);
    expect(usage?.memory).toMatch(/^[1-9]\d*Ki$/);
  });

  it('sees exits as terminated with their exit code, the termination message, and OOMKilled under a tiny memory limit', async () => {
    await core.createNamespacedPod({
      namespace: NAMESPACE,
      body: pod('exits', 'echo bye; echo "the reason" > /dev/termination-log; exit 3'),
    });
    const oom = pod('oom', 'tail /dev/zero');
    oom.spec!.containers[0]!.resources = { limits: { cpu: '500m', memory: '16Mi' } };
    await core.createNamespacedPod({ namespace: NAMESPACE, body: oom });

    const exited = await waitFor('exits', 'ended', (current) => current?.status?.phase === 'Failed');
    expect(terminated(exited)).toMatchObject({ exitCode: 3, reason: 'Error', message: 'the reason\n' });
    expect(terminated(exited)?.finishedAt).toBeInstanceOf(Date);
    expect(exited?.status?.conditions?.find((condition) => condition.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PodCompleted',
    });
    expect(await core.readNamespacedPodLog({ name: 'exits', namespace: NAMESPACE })).toBe('bye\n');

    const killed = await waitFor('oom', 'was OOM-killed', (current) => current?.status?.phase === 'Failed');
    expect(terminated(killed)).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });
  });

  it('refuses to start a container that would run as root under runAsNonRoot, as the kubelet does', async () => {
    const imageUser = pod('image-user', 'id -u');
    delete imageUser.spec!.securityContext!.runAsUser;
    delete imageUser.spec!.securityContext!.runAsGroup;
    const rootUser = pod('root-user', 'id -u');
    rootUser.spec!.containers[0]!.securityContext!.runAsUser = 0;
    await core.createNamespacedPod({ namespace: NAMESPACE, body: imageUser });
    await core.createNamespacedPod({ namespace: NAMESPACE, body: rootUser });

    const nonNumeric = await waitFor(
      'image-user',
      'was refused',
      (current) => waiting(current)?.reason === 'CreateContainerConfigError',
    );
    expect(waiting(nonNumeric)?.message).toMatch(
      /^container has runAsNonRoot and image has non-numeric user \(bot\), cannot verify user is non-root \(pod: "image-user_meetbot\(.+\)", container: bot\)$/,
    );
    expect(nonNumeric?.status?.phase).toBe('Pending');
    const root = await waitFor(
      'root-user',
      'was refused',
      (current) => waiting(current)?.reason === 'CreateContainerConfigError',
    );
    expect(waiting(root)?.message).toMatch(
      /^container's runAsUser breaks non-root policy \(pod: "root-user_meetbot/,
    );
  });

  it('keeps a pod whose Secret is missing in ContainerCreating, and starts it once the Secret exists', async () => {
    const body = pod('later', 'cat /run/s/k; echo; sleep 60', {
      volumes: [{ name: 'files', secret: { secretName: 'later-secret' } }],
    });
    body.spec!.containers[0]!.volumeMounts = [{ name: 'files', mountPath: '/run/s' }];
    await core.createNamespacedPod({ namespace: NAMESPACE, body });
    const held = await waitFor(
      'later',
      'waited',
      (current) => waiting(current)?.reason === 'ContainerCreating',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(waiting(await readPod('later'))?.reason).toBe('ContainerCreating');
    expect(held?.status?.phase).toBe('Pending');
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: { metadata: { name: 'later-secret' }, stringData: { k: 'arrived' } },
    });
    await waitFor('later', 'ran', (current) => current?.status?.phase === 'Running');
    expect(await logsUntil('later', 'arrived')).toBe('arrived\n');
  });

  it('runs under a Localhost seccomp profile from the seccomp directory with the service-account volume, and waits on a missing profile', async () => {
    const allowed = pod(
      'localhost-profile',
      'grep Seccomp: /proc/self/status; cat /var/run/secrets/kubernetes.io/serviceaccount/namespace; echo; sleep 60',
      {
        securityContext: {
          runAsUser: BOT_USER,
          seccompProfile: { type: 'Localhost', localhostProfile: 'allow-all.json' },
        },
        // The service-account token is mounted unless a pod says otherwise.
        automountServiceAccountToken: undefined,
      },
    );
    const missing = pod('missing-profile', 'true', {
      securityContext: {
        runAsUser: BOT_USER,
        seccompProfile: { type: 'Localhost', localhostProfile: 'nope.json' },
      },
    });
    await core.createNamespacedPod({ namespace: NAMESPACE, body: allowed });
    await core.createNamespacedPod({ namespace: NAMESPACE, body: missing });
    const log = await logsUntil('localhost-profile', NAMESPACE);
    expect(log).toMatch(/Seccomp:\s+2/);
    expect(log).toContain(`\n${NAMESPACE}\n`);
    const refused = await waitFor(
      'missing-profile',
      'was refused',
      (current) => waiting(current)?.reason === 'CreateContainerError',
    );
    expect(waiting(refused)?.message).toContain('cannot load seccomp profile');
  });

  it('deletes with grace: SIGTERM to a process that handles it, SIGKILL after the grace to one that does not', async () => {
    await core.createNamespacedPod({
      namespace: NAMESPACE,
      body: pod('polite', "trap 'echo got TERM; exit 0' TERM; echo up; sleep 60 & wait"),
    });
    await core.createNamespacedPod({ namespace: NAMESPACE, body: pod('stubborn', 'echo up; sleep 60') });
    await logsUntil('polite', 'up');
    await logsUntil('stubborn', 'up');
    const politeStart = Date.now();
    const answer = await core.deleteNamespacedPod({
      name: 'polite',
      namespace: NAMESPACE,
      gracePeriodSeconds: 20,
    });
    expect(answer.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    const stopped = await waitFor(
      'polite',
      'stopped',
      (current) => current === undefined || terminated(current) !== undefined,
    );
    if (stopped) expect(terminated(stopped)).toMatchObject({ exitCode: 0, reason: 'Completed' });
    await waitFor('polite', 'was removed', (current) => current === undefined);
    expect(Date.now() - politeStart).toBeLessThan(20_000);

    const stubbornStart = Date.now();
    await core.deleteNamespacedPod({ name: 'stubborn', namespace: NAMESPACE, gracePeriodSeconds: 3 });
    // `sh` is PID 1 without a handler: SIGTERM does nothing, SIGKILL comes when the grace is over.
    const killed = await waitFor(
      'stubborn',
      'was killed',
      (current) => current === undefined || terminated(current) !== undefined,
    );
    expect(Date.now() - stubbornStart).toBeGreaterThanOrEqual(2_500);
    if (killed) expect(terminated(killed)).toMatchObject({ exitCode: 137 });
    await waitFor('stubborn', 'was removed', (current) => current === undefined);
  });

  it('leaves no container behind once the double is closed', async () => {
    await core.createNamespacedPod({ namespace: NAMESPACE, body: pod('left-running', 'sleep 600') });
    await waitFor('left-running', 'ran', (current) => current?.status?.phase === 'Running');
    const label = `${DOUBLE_CONTAINER_LABEL}`;
    const before = await docker.listContainers({ all: true, filters: { label: [label] } });
    expect(before.length).toBeGreaterThan(0);
    const names = before.map((container) => container.Names[0] ?? '');
    expect(names.every((name) => name.startsWith('/k8s-double_bot_'))).toBe(true);
    await double.close();
    const after = await docker.listContainers({ all: true, filters: { label: [label] } });
    expect(after.filter((container) => before.some((old) => old.Id === container.Id))).toEqual([]);
  });
});
