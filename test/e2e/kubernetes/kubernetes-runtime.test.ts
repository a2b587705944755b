import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Pod, Watch } from '@kubernetes/client-node';
import Docker from 'dockerode';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { BOT_USER_ID } from '../../../shared/contract/bot-config.js';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { serializeBotSeccompProfile } from '../../../worker/runtime/bot-seccomp-profile.js';
import { DockerKubelet } from '../../support/kubernetes/docker-kubelet.js';
import { type KubernetesDouble, startKubernetesDouble } from '../../support/kubernetes/kubernetes-double.js';
import type { Role } from '../../support/kubernetes/rbac.js';
import { continuousSpeech } from '../../support/speech-script.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';

/**
 * Bots sent through BOT_RUNTIME=kubernetes: the workers drive the Kubernetes API double
 * (test/support/kubernetes/) with the deployment's own Role (deploy/kubernetes/worker-rbac.yaml), and
 * its DockerKubelet runs each bot pod as a real container of the bot image, which joins a simulated
 * meeting and transcribes it. Two nodes; the disruptions are the double's (the Eviction API, a lost
 * node, a cordon), as a cluster makes them.
 */
const NAMESPACE = 'meetbot';
const NODES = ['node-a', 'node-b'];
const WORKER_ENV = {
  BOT_RUNTIME: 'kubernetes',
  KUBERNETES_NAMESPACE: NAMESPACE,
  BOT_POD_SECCOMP_PROFILE: 'meetbot/bot-seccomp.json',
  BOT_POD_UNSCHEDULABLE_SECONDS: '6',
  WORKER_HEARTBEAT_SECONDS: '1',
  // Short, so a killed worker's bots are taken over within the test; not so short that a worker the
  // machine's other lanes delay for a few seconds counts as dead.
  WORKER_LOST_AFTER_SECONDS: '10',
  RECONCILE_INTERVAL_SECONDS: '2',
  WORKER_METRICS_PORT: '0',
};

function workerRole(): Role {
  const text = readFileSync(new URL('../../../deploy/kubernetes/worker-rbac.yaml', import.meta.url), 'utf8');
  const role = parseAllDocuments(text)
    .map((document) => document.toJSON() as { kind?: string })
    .find((object) => object.kind === 'Role');
  if (!role) throw new Error('deploy/kubernetes/worker-rbac.yaml has no Role');
  return role as unknown as Role;
}

let stack: Stack;
let double: KubernetesDouble;
let admin: CoreV1Api;
let workDirectory: string;
const workers = new Map<string, WorkerProcess>();
/** Every bot pod the double ever made, by meeting (from a watch: deleted ones included). */
const podsByMeeting = new Map<string, Set<string>>();
let stopWatching: AbortController | undefined;
const meetings: Array<{ meetingId: number; nativeId: string; platform: string }> = [];

function startWorker(id: string): WorkerProcess {
  const worker = stack.startWorker(id, { KUBECONFIG: join(workDirectory, 'kubeconfig') });
  workers.set(id, worker);
  return worker;
}

async function meetingWithBot(seconds: number) {
  const meeting = await stack.createMeetingAndBot({
    platform: 'google_meet',
    admission: { policy: 'after', delaySeconds: 2 },
    participants: continuousSpeech(seconds, { everySeconds: 6 }),
  });
  meetings.push(meeting);
  return meeting;
}

function botPods(meetingId: number): V1Pod[] {
  return double
    .pods(NAMESPACE)
    .filter((pod) => pod.metadata.labels?.[Labels.meetingId] === String(meetingId)) as unknown as V1Pod[];
}

async function runningPod(meetingId: number, except: string[] = []): Promise<V1Pod> {
  let found: V1Pod | undefined;
  await expect
    .poll(
      () => {
        found = botPods(meetingId).find(
          (pod) =>
            !except.includes(pod.metadata?.name ?? '') &&
            pod.status?.phase === 'Running' &&
            !pod.metadata?.deletionTimestamp,
        );
        return found !== undefined;
      },
      { timeout: 180_000, interval: 500 },
    )
    .toBe(true);
  return found!;
}

async function finalSegments(meetingId: number): Promise<Array<{ text: string; created_at: Date }>> {
  return stack.api.database
    .db('transcript_segments')
    .where({ meeting_id: meetingId, is_final: true })
    .orderBy('created_at');
}

async function segmentsAfter(meetingId: number, since: Date, count: number): Promise<void> {
  await expect
    .poll(async () => (await finalSegments(meetingId)).filter((s) => s.created_at > since).length, {
      timeout: 150_000,
      interval: 1000,
    })
    .toBeGreaterThanOrEqual(count);
}

async function waitForEvents(meetingId: number, reason: string, count: number) {
  let found: Awaited<ReturnType<Stack['transitions']>> = [];
  await expect
    .poll(
      async () => {
        found = (await stack.transitions(meetingId)).filter((event) => event.reason === reason);
        return found.length;
      },
      { timeout: 120_000, interval: 500 },
    )
    .toBeGreaterThanOrEqual(count);
  return found;
}

async function endMeeting(meeting: { meetingId: number; nativeId: string; platform: string }) {
  await stack.api.request('DELETE', `/bots/${meeting.platform}/${meeting.nativeId}`, { key: stack.user.key });
  await stack.waitForStatus(meeting.meetingId, ['completed', 'failed'], 120_000);
  await expect.poll(() => botPods(meeting.meetingId).length, { timeout: 90_000 }).toBe(0);
}

beforeAll(async () => {
  workDirectory = mkdtempSync(join(tmpdir(), 'meetbot-kubernetes-'));
  // The profile the deployment's DaemonSet installs on every node, where a kubelet reads it.
  const seccompDirectory = join(workDirectory, 'seccomp');
  mkdirSync(join(seccompDirectory, 'meetbot'), { recursive: true });
  writeFileSync(join(seccompDirectory, 'meetbot', 'bot-seccomp.json'), serializeBotSeccompProfile());
  stack = await startStack({ workerEnv: WORKER_ENV });
  double = await startKubernetesDouble({
    namespaces: [NAMESPACE],
    nodes: NODES.map((name) => ({ name, cpu: '4', memory: '8Gi' })),
    kubelet: new DockerKubelet({ docker: new Docker(), seccompDirectory }),
    role: workerRole(),
  });
  writeFileSync(join(workDirectory, 'kubeconfig'), double.kubeconfigYaml());
  const adminConfig = double.kubeConfig({ admin: true });
  admin = adminConfig.makeApiClient(CoreV1Api);
  stopWatching = await new Watch(adminConfig).watch(
    `/api/v1/namespaces/${NAMESPACE}/pods`,
    {},
    (_type: string, pod: V1Pod) => {
      const meetingId = pod.metadata?.labels?.[Labels.meetingId];
      if (!meetingId) return;
      const names = podsByMeeting.get(meetingId) ?? new Set<string>();
      names.add(pod.metadata?.name ?? '');
      podsByMeeting.set(meetingId, names);
    },
    () => {},
  );
  startWorker('kube-w1');
}, 600_000);

/** A failed try's meetings end before the next test (its retry starts clean). */
beforeEach(async () => {
  const nodes = new Set(double.nodes().map((node) => node.metadata.name));
  for (const name of NODES) if (!nodes.has(name)) double.addNode({ name, cpu: '4', memory: '8Gi' });
  for (const name of NODES) double.uncordon(name);
  for (const meeting of meetings.splice(0)) await endMeeting(meeting);
}, 300_000);

afterAll(async () => {
  stopWatching?.abort();
  await stack?.close();
  await double?.close();
  if (workDirectory) rmSync(workDirectory, { recursive: true, force: true });
});

describe('bots as pods (BOT_RUNTIME=kubernetes)', () => {
  it('a bot transcribes a meeting from a pod contained as on Docker, its config only in a Secret that goes with it', async () => {
    const meeting = await meetingWithBot(60);
    await stack.waitForStatus(meeting.meetingId, ['active'], 180_000);
    const pod = await runningPod(meeting.meetingId);
    const name = pod.metadata?.name ?? '';

    // The containment of the Docker runtime, carried over.
    expect(pod.spec?.restartPolicy).toBe('Never');
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: BOT_USER_ID,
      seccompProfile: { type: 'Localhost', localhostProfile: 'meetbot/bot-seccomp.json' },
    });
    expect(pod.spec?.containers[0]?.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.metadata?.labels).toMatchObject({
      'app.kubernetes.io/component': 'bot',
      [Labels.workerId]: 'kube-w1',
    });
    // Nothing of the config, the Redis credential or the meeting's link in the pod's spec.
    const podText = JSON.stringify(pod);
    expect(podText).not.toContain('redis://');
    expect(podText).not.toContain(meeting.nativeId);
    const secret = double.secret(name);
    expect(secret?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Pod',
      name,
      uid: pod.metadata?.uid,
    });

    await expect
      .poll(async () => (await finalSegments(meeting.meetingId)).length, { timeout: 120_000 })
      .toBeGreaterThanOrEqual(2);
    const logs = await admin.readNamespacedPodLog({ name, namespace: NAMESPACE, tailLines: 50 });
    expect(logs).toContain('"meetingId"');

    await endMeeting(meetings.pop()!);
    expect((await stack.transitions(meeting.meetingId)).at(-1)).toMatchObject({
      to: 'completed',
      reason: 'stopped',
    });
    // Deleted with its pod (owner reference), and no container left.
    await expect.poll(() => double.secret(name), { timeout: 30_000 }).toBeUndefined();
    expect(podsByMeeting.get(String(meeting.meetingId))?.size).toBe(1);
  });

  it('evicted, then its node lost, mid-meeting: relaunched each time, and the transcript carries on', async () => {
    const meeting = await meetingWithBot(300);
    await stack.waitForStatus(meeting.meetingId, ['active'], 180_000);
    const first = await runningPod(meeting.meetingId);
    await expect
      .poll(async () => (await finalSegments(meeting.meetingId)).length, { timeout: 120_000 })
      .toBeGreaterThanOrEqual(2);

    // A node drain's eviction.
    const evictedAt = new Date();
    await admin.createNamespacedPodEviction({
      name: first.metadata?.name ?? '',
      namespace: NAMESPACE,
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: first.metadata?.name, namespace: NAMESPACE },
      },
    });
    const [relaunched] = await waitForEvents(meeting.meetingId, 'relaunched', 1);
    expect(relaunched?.detail).toMatch(/^the bot's pod was evicted/);
    const second = await runningPod(meeting.meetingId, [first.metadata?.name ?? '']);
    await waitForEvents(meeting.meetingId, 'rejoined', 1);
    await segmentsAfter(meeting.meetingId, evictedAt, 2);

    // Its node is lost.
    const lostAt = new Date();
    await double.loseNode(second.spec?.nodeName ?? '');
    const relaunches = await waitForEvents(meeting.meetingId, 'relaunched', 2);
    expect(relaunches[1]?.detail).toMatch(/^the bot's node was lost/);
    const third = await runningPod(meeting.meetingId, [
      first.metadata?.name ?? '',
      second.metadata?.name ?? '',
    ]);
    expect(third.spec?.nodeName).not.toBe(second.spec?.nodeName);
    await waitForEvents(meeting.meetingId, 'rejoined', 2);
    await segmentsAfter(meeting.meetingId, lostAt, 2);
    const status = await stack.api.request('GET', `/meetings/${meeting.meetingId}`, { key: stack.user.key });
    expect(status.body.status).toBe('active');
  });

  it('a pod no node can take is reported on the meeting’s events, then failed after BOT_POD_UNSCHEDULABLE_SECONDS', async () => {
    for (const name of NODES) double.cordon(name);
    const meeting = await meetingWithBot(30);
    const [waiting] = await waitForEvents(meeting.meetingId, 'waiting_for_node', 1);
    expect(waiting?.detail).toMatch(/no node can take the bot's pod yet: 0\/\d nodes are available/);
    const statuses = await stack.waitForStatus(meeting.meetingId, ['failed', 'active', 'completed'], 60_000);
    expect(statuses.at(-1)).toBe('failed');
    const failed = (await stack.transitions(meeting.meetingId)).at(-1);
    expect(failed).toMatchObject({ reason: 'bot_unschedulable' });
    expect(failed?.detail).toMatch(/within 6 s \(BOT_POD_UNSCHEDULABLE_SECONDS\)/);
    expect(botPods(meeting.meetingId)).toEqual([]);
    meetings.pop();
  });

  it('two workers launch each meeting once; one killed mid-meeting, the other takes its bots over', async () => {
    startWorker('kube-w2');
    const started = await Promise.all([meetingWithBot(240), meetingWithBot(240)]);
    for (const meeting of started) await stack.waitForStatus(meeting.meetingId, ['active'], 180_000);
    const owners = await Promise.all(
      started.map(
        async (meeting) => (await runningPod(meeting.meetingId)).metadata?.labels?.[Labels.workerId],
      ),
    );
    // Both workers may have launched: kill the first meeting's, whichever it is.
    const victim = owners[0] ?? '';
    const survivor = victim === 'kube-w1' ? 'kube-w2' : 'kube-w1';
    const victimMeetings = started.filter((_, index) => owners[index] === victim);
    const podsBefore = new Map(
      await Promise.all(
        victimMeetings.map(
          async (m) => [m.meetingId, (await runningPod(m.meetingId)).metadata?.name] as const,
        ),
      ),
    );
    await stack.stopWorker(workers.get(victim)!, 'SIGKILL');
    const killedAt = new Date();

    for (const meeting of victimMeetings) {
      // The same pod, relabelled to the survivor: taken over, not relaunched.
      await expect
        .poll(() => botPods(meeting.meetingId)[0]?.metadata?.labels?.[Labels.workerId], { timeout: 90_000 })
        .toBe(survivor);
      expect(botPods(meeting.meetingId)[0]?.metadata?.name).toBe(podsBefore.get(meeting.meetingId));
      const row = await stack.api.database.db('meetings').where({ id: meeting.meetingId }).first('worker_id');
      expect(row.worker_id).toBe(survivor);
      await segmentsAfter(meeting.meetingId, killedAt, 2);
      expect((await stack.transitions(meeting.meetingId)).map((event) => event.reason)).not.toContain(
        'relaunched',
      );
    }
    // Never two launches for one meeting: one pod each, ever.
    for (const meeting of started) expect(podsByMeeting.get(String(meeting.meetingId))?.size).toBe(1);
    // The survivor still drives the taken-over bots: a stop ends them and deletes their pods.
    for (const meeting of meetings.splice(0)) await endMeeting(meeting);
    startWorker(victim);
  });

  it('the workers used only what their Role grants, and it was enough', () => {
    const used = double.usedPermissions();
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((permission) => !permission.allowed)).toEqual([]);
  });
});
