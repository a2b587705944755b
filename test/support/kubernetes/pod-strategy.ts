import { decode, type KubeObject, type Pod, PodSchema } from './objects.js';
import { applyPodDefaults, qosClassOf } from './pod-defaults.js';
import { podProblems, podUpdateProblems } from './pod-validation.js';
import type { Strategy } from './registry.js';

const TERMINAL_PHASES = ['Succeeded', 'Failed'];

export const asPod = (object: KubeObject) => object as unknown as Pod;

export function isTerminal(pod: Pod): boolean {
  return TERMINAL_PHASES.includes(pod.status?.phase ?? '');
}

/** Pods' REST rules (pkg/registry/core/pod/strategy.go). */
export const podStrategy: Strategy = {
  kind: 'Pod',
  resource: 'pods',
  apiVersion: 'v1',
  namespaced: true,
  returnDeletedObject: true,
  selectableFields: [
    'metadata.name',
    'metadata.namespace',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],

  decode: (body) => decode(PodSchema, 'Pod', body) as KubeObject,

  /** A new pod's status is the server's: Pending, with its QoS class. */
  prepareForCreate(object) {
    const pod = asPod(object);
    applyPodDefaults(pod);
    pod.status = { phase: 'Pending', qosClass: qosClassOf(pod) };
  },

  validate: (object) => podProblems(asPod(object)),

  /** The status is written through pods/status (here: the double's kubelet and scheduler), never by an update. */
  prepareForUpdate(next, old) {
    const pod = asPod(next);
    pod.status = asPod(old).status;
  },

  validateUpdate: (next, old) => podUpdateProblems(asPod(next), asPod(old)),

  fields(object) {
    const pod = asPod(object);
    return {
      'metadata.name': pod.metadata.name ?? '',
      'metadata.namespace': pod.metadata.namespace ?? '',
      'spec.nodeName': pod.spec.nodeName ?? '',
      'spec.restartPolicy': pod.spec.restartPolicy ?? '',
      'spec.schedulerName': pod.spec.schedulerName ?? '',
      'spec.serviceAccountName': pod.spec.serviceAccountName ?? '',
      'spec.hostNetwork': String(pod.spec.hostNetwork ?? false),
      'status.phase': pod.status?.phase ?? '',
      'status.podIP': pod.status?.podIP ?? '',
      'status.nominatedNodeName': String(pod.status?.nominatedNodeName ?? ''),
    };
  },

  /**
   * The grace a deletion gets (CheckGracefulDelete): the request's, else the pod's
   * terminationGracePeriodSeconds; none for a pod no node has taken or one that has already ended,
   * which nothing needs to stop.
   */
  gracePeriod(object, requested) {
    const pod = asPod(object);
    if (!pod.spec.nodeName || isTerminal(pod)) return 0;
    const period = requested ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    return period < 0 ? 1 : period;
  },
};
