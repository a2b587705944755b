import type { ContainerStatus, Pod, PodCondition, PodStatus } from './objects.js';
import { timestamp } from './objects.js';

/**
 * A pod's status as the scheduler and the kubelet write it
 * (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/): the phase, the conditions
 * (PodScheduled, PodReadyToStartContainers, Initialized, ContainersReady, Ready, DisruptionTarget)
 * and the container's state: waiting → running → terminated.
 */
export interface ConditionChange {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export interface TerminatedState {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt?: string;
  finishedAt: string;
  containerID?: string;
  signal?: number;
}

function statusOf(pod: Pod): PodStatus {
  pod.status ??= { phase: 'Pending' };
  return pod.status;
}

/** Sets a condition; its lastTransitionTime changes only when its status does. */
export function setCondition(pod: Pod, change: ConditionChange): void {
  const status = statusOf(pod);
  status.conditions ??= [];
  const existing = status.conditions.find((condition) => condition.type === change.type);
  const next: PodCondition = {
    type: change.type,
    status: change.status,
    lastProbeTime: null,
    lastTransitionTime:
      existing && existing.status === change.status ? existing.lastTransitionTime : timestamp(),
    ...(change.reason && { reason: change.reason }),
    ...(change.message && { message: change.message }),
  };
  if (existing) status.conditions[status.conditions.indexOf(existing)] = next;
  else status.conditions.push(next);
}

export function conditionOf(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((condition) => condition.type === type);
}

function containerStatus(pod: Pod): ContainerStatus {
  const status = statusOf(pod);
  const container = pod.spec.containers?.[0];
  status.containerStatuses ??= [
    {
      name: container?.name ?? '',
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: container?.image ?? '',
      imageID: '',
      started: false,
    },
  ];
  return status.containerStatuses[0]!;
}

function notReady(pod: Pod, reason: 'ContainersNotReady' | 'PodCompleted'): void {
  const name = pod.spec.containers?.[0]?.name ?? '';
  const message = reason === 'ContainersNotReady' ? `containers with unready status: [${name}]` : undefined;
  setCondition(pod, { type: 'ContainersReady', status: 'False', reason, ...(message && { message }) });
  setCondition(pod, { type: 'Ready', status: 'False', reason, ...(message && { message }) });
}

/** The kubelet took the pod: its sandbox is being made and the container created. */
export function markAccepted(pod: Pod, hostIP: string, podIP: string): void {
  const status = statusOf(pod);
  status.startTime ??= timestamp();
  status.hostIP = hostIP;
  status.hostIPs = [{ ip: hostIP }];
  status.podIP = podIP;
  status.podIPs = [{ ip: podIP }];
  setCondition(pod, { type: 'PodReadyToStartContainers', status: 'True' });
  setCondition(pod, { type: 'Initialized', status: 'True' });
  notReady(pod, 'ContainersNotReady');
  containerStatus(pod);
}

export function markWaiting(pod: Pod, reason: string, message?: string): void {
  const container = containerStatus(pod);
  container.state = { waiting: { reason, ...(message && { message }) } };
  container.ready = false;
  container.started = false;
}

export function markRunning(pod: Pod, containerId: string, imageId: string, startedAt: string): void {
  const status = statusOf(pod);
  status.phase = 'Running';
  const container = containerStatus(pod);
  container.state = { running: { startedAt } };
  container.ready = true;
  container.started = true;
  container.containerID = containerId;
  container.imageID = imageId;
  setCondition(pod, { type: 'ContainersReady', status: 'True' });
  setCondition(pod, { type: 'Ready', status: 'True' });
}

/** The container ended; with a phase, the pod has ended too (restartPolicy Never, or no restart due). */
export function markTerminated(pod: Pod, terminated: TerminatedState, phase?: 'Succeeded' | 'Failed'): void {
  const status = statusOf(pod);
  const container = containerStatus(pod);
  container.state = { terminated: { ...terminated } };
  container.ready = false;
  container.started = false;
  if (terminated.containerID) container.containerID = terminated.containerID;
  if (phase) {
    status.phase = phase;
    notReady(pod, 'PodCompleted');
  } else {
    notReady(pod, 'ContainersNotReady');
  }
}

/** The container ended and will be restarted after a back-off (restartPolicy Always or OnFailure). */
export function markRestarting(pod: Pod, terminated: TerminatedState, backOffSeconds: number): void {
  const container = containerStatus(pod);
  container.lastState = { terminated: { ...terminated } };
  container.restartCount += 1;
  container.ready = false;
  container.started = false;
  container.state = {
    waiting: {
      reason: 'CrashLoopBackOff',
      message: `back-off ${backOffSeconds}s restarting failed container=${container.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
    },
  };
  notReady(pod, 'ContainersNotReady');
}

/** Node-pressure eviction: the pod ends Failed, with reason Evicted and the kubelet's message. */
export function markEvicted(pod: Pod, message: string): void {
  const status = statusOf(pod);
  status.phase = 'Failed';
  status.reason = 'Evicted';
  status.message = message;
  notReady(pod, 'PodCompleted');
}
