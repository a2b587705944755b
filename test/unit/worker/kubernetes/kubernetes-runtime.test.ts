import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { BOT_CONFIG_ENV } from '../../../../shared/contract/bot-config.js';
import { parseConfig } from '../../../../shared/infra/config.js';
import { createLogger } from '../../../../shared/infra/logger.js';
import { type BotContainerSpec, BotNotPlacedError, Labels } from '../../../../worker/runtime/bot-runtime.js';
import { kubernetesBotHost } from '../../../../worker/runtime/kubernetes/kubernetes-host.js';
import { KubernetesRuntime } from '../../../../worker/runtime/kubernetes/kubernetes-runtime.js';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { ManualKubelet } from '../../../support/kubernetes/manual-kubelet.js';
import type { Role } from '../../../support/kubernetes/rbac.js';

// The Kubernetes runtime against the API double, its pods run by a kubelet the test drives (no
// containers): what the worker sees of a bot's pod, from its start to its end, whatever ends it.

const log = createLogger('test', 'silent');
let double: KubernetesDouble;
let kubelet: ManualKubelet;
let runtime: KubernetesRuntime;
let launches = 0;

function workerRole(): Role {
  const text = readFileSync(
    new URL('../../../../deploy/kubernetes/worker-rbac.yaml', import.meta.url),
    'utf8',
  );
  return parseAllDocuments(text)
    .map((document) => document.toJSON() as { kind?: string })
    .find((object) => object.kind === 'Role') as unknown as Role;
}

function spec(overrides: Partial<BotContainerSpec> = {}): BotContainerSpec {
  launches += 1;
  return {
    name: `meetbot-test-meeting-${launches}`,
    image: 'meetbot/bot:latest',
    env: { [BOT_CONFIG_ENV]: JSON.stringify({ meetingId: launches }) },
    labels: {
      [Labels.deployment]: 'test',
      [Labels.meetingId]: String(launches),
      [Labels.sessionId]: `session-${launches}`,
      [Labels.workerId]: 'w1',
    },
    memoryBytes: 1024 * 2 ** 20,
    nanoCpus: 1e9,
    pidsLimit: 512,
    networkMode: 'host',
    seccompProfile: null,
    ...overrides,
  };
}

function runtimeOn(d: KubernetesDouble, options: { unschedulableMs?: number } = {}): KubernetesRuntime {
  return new KubernetesRuntime(
    d.kubeConfig(),
    {
      namespace: 'meetbot',
      seccompProfile: 'meetbot/bot-seccomp.json',
      filesDirectory: '/home/bot',
      cpuRequestCores: 0.9,
      unschedulableMs: options.unschedulableMs ?? 1500,
      startTimeoutMs: 20_000,
      pollMs: 50,
    },
    log,
  );
}

beforeEach(async () => {
  kubelet = new ManualKubelet({ logText: 'bot log line 1\nbot log line 2\n' });
  double = await startKubernetesDouble({
    namespaces: ['meetbot'],
    nodes: [
      { name: 'node-a', cpu: '2', memory: '4Gi' },
      { name: 'node-b', cpu: '2', memory: '4Gi' },
    ],
    kubelet,
    role: workerRole(),
    gcDelayMs: 20,
  });
  runtime = runtimeOn(double);
});
afterEach(async () => {
  // Every call above ran under the deployment's Role: none of them asked for more.
  const refused = double.usedPermissions().filter((permission) => !permission.allowed);
  await double?.close();
  expect(refused).toEqual([]);
});

function exits(): { ids: string[]; stop: Promise<() => void> } {
  const ids: string[] = [];
  const stop = runtime.onExit({ [Labels.deployment]: 'test', [Labels.workerId]: 'w1' }, (id) => ids.push(id));
  return { ids, stop };
}

describe('the Kubernetes bot runtime', () => {
  it('starts a bot as a running pod, reads it as a container, and ends it with its Secret', async () => {
    const id = await runtime.start(spec());
    expect(double.pod(id)?.status?.phase).toBe('Running');
    expect(await runtime.inspect(id)).toMatchObject({ id, running: true, exitCode: null });
    expect((await runtime.list({ [Labels.deployment]: 'test' })).map((bot) => bot.id)).toEqual([id]);
    expect(await runtime.logsTail(id, 1)).toBe('bot log line 2\n');
    const secret = double.secret(id);
    expect(secret?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Pod', name: id });

    await runtime.stop(id, 5);
    expect(await runtime.inspect(id)).toBeUndefined();
    await expect.poll(() => double.secret(id), { timeout: 5000 }).toBeUndefined();
    await runtime.remove(id);
    await runtime.stop(id, 5);
  });

  it('tells each exit once: a container that ended, and a pod deleted by an eviction, with why', async () => {
    const watch = exits();
    const stop = await watch.stop;
    const ended = await runtime.start(spec());
    const evicted = await runtime.start(spec());
    kubelet.exit(ended, 3, 'Error');
    await expect.poll(() => watch.ids).toEqual([ended]);
    expect(await runtime.inspect(ended)).toMatchObject({ running: false, exitCode: 3, oomKilled: false });
    expect((await runtime.inspect(ended))?.disruption).toBeUndefined();

    await double
      .kubeConfig({ admin: true })
      .makeApiClient((await import('@kubernetes/client-node')).CoreV1Api)
      .createNamespacedPodEviction({
        name: evicted,
        namespace: 'meetbot',
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: evicted, namespace: 'meetbot' },
        },
      });
    await expect.poll(() => watch.ids, { timeout: 10_000 }).toEqual([ended, evicted]);
    // Gone from the API: its last state as the watch saw it.
    await expect.poll(() => double.pod(evicted), { timeout: 10_000 }).toBeUndefined();
    const info = await runtime.inspect(evicted);
    expect(info).toMatchObject({ running: false });
    expect(info?.exitCode).not.toBeNull();
    expect(info?.disruption).toMatch(/^the bot's pod was evicted/);
    stop();
  });

  it('names a lost node and a kubelet eviction as disruptions', async () => {
    const watch = exits();
    const stop = await watch.stop;
    const onA = await runtime.start(spec());
    const node = double.pod(onA)?.spec.nodeName ?? '';
    await double.loseNode(node);
    await expect.poll(() => watch.ids, { timeout: 10_000 }).toEqual([onA]);
    expect((await runtime.inspect(onA))?.disruption).toMatch(/^the bot's node was lost/);

    const pressured = await runtime.start(spec());
    await double.kubeletEvict(pressured, 'The node was low on resource: memory.');
    await expect.poll(() => watch.ids, { timeout: 10_000 }).toEqual([onA, pressured]);
    expect((await runtime.inspect(pressured))?.disruption).toMatch(
      /ran short of a resource.*low on resource: memory/,
    );
    stop();
  });

  it('resumes its watch after the server ends it, and lists again after 410 Gone, missing no exit', async () => {
    const watch = exits();
    const stop = await watch.stop;
    const first = await runtime.start(spec());
    const second = await runtime.start(spec());
    double.dropWatches();
    kubelet.exit(first, 0, 'Completed');
    await expect.poll(() => watch.ids, { timeout: 10_000 }).toEqual([first]);

    // The history is compacted while no watch is open: the resumed watch is told 410 and lists again.
    double.dropWatches();
    await runtime.stop(second, 1);
    double.compactHistory();
    await expect.poll(() => watch.ids, { timeout: 15_000 }).toEqual([first, second]);
    stop();
  });

  it('a pod another worker takes over (relabelled) is no longer this worker’s exit', async () => {
    const watch = exits();
    const stop = await watch.stop;
    const id = await runtime.start(spec());
    await runtime.relabel(id, { [Labels.workerId]: 'w2' });
    expect(double.pod(id)?.metadata.labels?.[Labels.workerId]).toBe('w2');
    kubelet.exit(id, 0, 'Completed');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(watch.ids).toEqual([]);
    stop();
  });

  it('says while no node can take a pod, then gives up with the scheduler’s words and deletes it', async () => {
    const waits: string[] = [];
    const start = runtime.start(spec({ memoryBytes: 64 * 2 ** 30 }), {
      waiting: (detail) => waits.push(detail),
    });
    await expect(start).rejects.toThrow(BotNotPlacedError);
    await expect(start).rejects.toMatchObject({ reason: 'bot_unschedulable' });
    await expect(start).rejects.toThrow(
      /within 2 s \(BOT_POD_UNSCHEDULABLE_SECONDS\): 0\/2 nodes are available: 2 Insufficient memory/,
    );
    expect(waits).toEqual([
      expect.stringMatching(/^no node can take the bot's pod yet: 0\/2 nodes are available/),
    ]);
    expect(double.pods('meetbot')).toEqual([]);
    await expect
      .poll(() => double.secret(`meetbot-test-meeting-${launches}`), { timeout: 5000 })
      .toBeUndefined();
  });

  it('fails at once a pod that can never start, and leaves nothing', async () => {
    const next = `meetbot-test-meeting-${launches + 1}`;
    kubelet.refuseStart(
      next,
      'CreateContainerConfigError',
      'container has runAsNonRoot and image will run as root',
    );
    await expect(runtime.start(spec())).rejects.toThrow(/can't start: CreateContainerConfigError/);
    expect(double.pods('meetbot')).toEqual([]);
  });

  it('reads usage from the metrics API, and goes without on a cluster that has none', async () => {
    const id = await runtime.start(spec());
    kubelet.setUsage(id, { cpu: '250m', memory: '512Mi' });
    expect(await runtime.usage(id)).toMatchObject({ cpuCores: 0.25, memoryBytes: 512 * 2 ** 20 });
    double.setMetricsAvailable(false);
    expect(await runtimeOn(double).usage(id)).toBeUndefined();
  });

  it('is the host of a worker whose deployment name can name pods, and refuses one that can’t', () => {
    const host = kubernetesBotHost(
      parseConfig({ BOT_RUNTIME: 'kubernetes', KUBERNETES_NAMESPACE: 'meetbot', QUEUE_PREFIX: 'meetbot' }),
      log,
      0.9,
      double.kubeConfig(),
    );
    expect(host).toMatchObject({ name: 'kubernetes:meetbot', runtime: { sharedAmongWorkers: true } });
    expect(host.machine).toBeUndefined();
    expect(() =>
      kubernetesBotHost(
        parseConfig({ BOT_RUNTIME: 'kubernetes', QUEUE_PREFIX: 'Meet_Bot' }),
        log,
        0.9,
        double.kubeConfig(),
      ),
    ).toThrow(/names each bot's pod after QUEUE_PREFIX \(here "Meet_Bot"\): use lowercase letters/);
  });
});
