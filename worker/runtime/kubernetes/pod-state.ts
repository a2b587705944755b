import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import type { BotContainerInfo } from '../bot-runtime.js';

/**
 * Why Kubernetes ended a pod for reasons of its own, by the reason of its `DisruptionTarget`
 * condition (set since Kubernetes 1.26 before such a deletion or kill), in words for the meeting's
 * events.
 */
const DISRUPTIONS: Record<string, string> = {
  EvictionByEvictionAPI: "the bot's pod was evicted (the Eviction API: a node drain or an autoscaler)",
  PreemptionByScheduler: "the bot's pod was preempted by a pod of higher priority",
  DeletionByTaintManager: "the bot's node was lost (NotReady or unreachable: its taint evicted the pod)",
  DeletionByPodGC: "the bot's node was lost (gone from the cluster: the pod was garbage-collected)",
  TerminationByKubelet: "the bot's node ran short of a resource (its kubelet evicted the pod)",
};

/** A pod waiting on the scheduler, with its words (`0/3 nodes are available: 3 Insufficient cpu.`). */
export function unschedulableMessage(pod: V1Pod): string | undefined {
  const scheduled = conditionOf(pod, 'PodScheduled');
  if (scheduled?.status !== 'False' || scheduled.reason !== 'Unschedulable') return undefined;
  return scheduled.message ?? 'no node can take the pod';
}

/** A pod waiting to start on its node (pulling its image, a Secret not there yet), with the reason. */
export function waitingReason(pod: V1Pod): string | undefined {
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting;
  if (!waiting) return undefined;
  return [waiting.reason, waiting.message].filter(Boolean).join(': ') || undefined;
}

export function isRunning(pod: V1Pod): boolean {
  return pod.status?.phase === 'Running' && pod.status.containerStatuses?.[0]?.state?.running !== undefined;
}

export function hasEnded(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * The bot's container as the worker reads it from its pod. A pod not yet running is like a Docker
 * container created and not started (no exit code). One that ended carries its container's exit
 * code (137 for a kill that left none, as Docker reports it); one whose deletion began (`stop`, an
 * eviction) is no longer running.
 */
export function botInfoOfPod(pod: V1Pod, deleted = false): BotContainerInfo {
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  const ended = deleted || hasEnded(pod) || terminated !== undefined;
  const disruption = disruptionOf(pod);
  return {
    id: pod.metadata?.name ?? '',
    name: pod.metadata?.name ?? '',
    labels: pod.metadata?.labels ?? {},
    running: !ended && !pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Pending',
    exitCode: ended ? (terminated?.exitCode ?? KILLED_EXIT_CODE) : null,
    oomKilled: terminated?.reason === 'OOMKilled',
    ...(disruption && { disruption }),
  };
}

/** What Docker says of a container killed by SIGKILL, for a pod that ended without an exit code. */
const KILLED_EXIT_CODE = 137;

function disruptionOf(pod: V1Pod): string | undefined {
  const target = conditionOf(pod, 'DisruptionTarget');
  if (target?.status === 'True' && target.reason) {
    const words = DISRUPTIONS[target.reason] ?? `the bot's pod was disrupted (${target.reason})`;
    return target.message ? `${words}: ${target.message}` : words;
  }
  // Before 1.26, or a kubelet that sets no condition: the pod's own reason.
  if (pod.status?.reason === 'Evicted')
    return `${DISRUPTIONS.TerminationByKubelet}: ${pod.status.message ?? ''}`;
  if (pod.status?.reason === 'NodeLost') return DISRUPTIONS.DeletionByTaintManager;
  return undefined;
}

function conditionOf(pod: V1Pod, type: string): V1PodCondition | undefined {
  return pod.status?.conditions?.find((condition) => condition.type === type);
}
