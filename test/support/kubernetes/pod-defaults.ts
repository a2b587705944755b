import type { Container, Pod, Volume } from './objects.js';
import { cpuMillicores, isQuantity } from './quantity.js';

/** Where the ServiceAccount admission mounts the token (and where the kubelet puts it). */
export const SERVICE_ACCOUNT_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The name prefix of the projected token volume the admission adds (`kube-api-access-xxxxx`). */
export const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';

/** The seconds the DefaultTolerationSeconds admission lets a pod stay on a NotReady or unreachable node. */
const DEFAULT_TOLERATION_SECONDS = 300;
/** The mode the API defaults secret and projected volumes' files to (0644). */
const DEFAULT_FILE_MODE = 0o644;

function randomSuffix(): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return Array.from({ length: 5 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

/**
 * `:latest` or no tag: the image is pulled every time (Always); any other tag: IfNotPresent
 * (https://kubernetes.io/docs/concepts/containers/images/#imagepullpolicy-defaulting).
 */
function defaultPullPolicy(image: string | undefined): string {
  if (!image || image.includes('@')) return 'IfNotPresent';
  const lastPart = image.split('/').at(-1) ?? '';
  const tag = lastPart.includes(':') ? lastPart.split(':').at(-1) : undefined;
  return tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: Container): void {
  container.terminationMessagePath ??= '/dev/termination-log';
  container.terminationMessagePolicy ??= 'File';
  container.imagePullPolicy ??= defaultPullPolicy(container.image);
  container.resources ??= {};
  // A limit without a request: the request defaults to the limit
  // (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits).
  const { limits } = container.resources;
  if (limits && Object.keys(limits).length) {
    container.resources.requests ??= {};
    for (const [name, quantity] of Object.entries(limits)) container.resources.requests[name] ??= quantity;
  }
}

function defaultVolume(volume: Volume): void {
  if (volume.secret) volume.secret.defaultMode ??= DEFAULT_FILE_MODE;
  if (volume.projected) volume.projected.defaultMode ??= DEFAULT_FILE_MODE;
}

/**
 * What the API server's defaulting and its default admission plugins add to a new pod: restart
 * policy, grace period, scheduler, service account and its token volume (unless
 * automountServiceAccountToken is false), the not-ready/unreachable tolerations, and per container
 * the termination message, pull policy and requests from limits.
 */
export function applyPodDefaults(pod: Pod): void {
  const spec = pod.spec;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.serviceAccountName ??= spec.serviceAccount ?? 'default';
  spec.serviceAccount = spec.serviceAccountName;
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  for (const container of spec.containers ?? []) defaultContainer(container);
  for (const volume of spec.volumes ?? []) defaultVolume(volume);
  spec.tolerations ??= [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!spec.tolerations.some((toleration) => toleration.key === key && toleration.effect === 'NoExecute'))
      spec.tolerations.push({
        key,
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
      });
  }
  if (spec.automountServiceAccountToken !== false) addServiceAccountToken(pod);
}

/** The ServiceAccount admission's projected volume: token, the cluster's CA and the namespace. */
function addServiceAccountToken(pod: Pod): void {
  const spec = pod.spec;
  const containers = spec.containers ?? [];
  if (
    containers.every((container) =>
      container.volumeMounts?.some((mount) => mount.mountPath === SERVICE_ACCOUNT_MOUNT),
    )
  )
    return;
  const name = `${SERVICE_ACCOUNT_VOLUME_PREFIX}${randomSuffix()}`;
  spec.volumes ??= [];
  spec.volumes.push({
    name,
    projected: {
      defaultMode: DEFAULT_FILE_MODE,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
    },
  });
  for (const container of containers) {
    if (container.volumeMounts?.some((mount) => mount.mountPath === SERVICE_ACCOUNT_MOUNT)) continue;
    container.volumeMounts ??= [];
    container.volumeMounts.push({ name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT });
  }
}

/**
 * The pod's QoS class (https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/): Guaranteed when
 * every container's cpu and memory requests equal their limits, BestEffort with no requests or
 * limits at all, Burstable otherwise.
 */
export function qosClassOf(pod: Pod): string {
  const containers = pod.spec.containers ?? [];
  const resources = containers.map((container) => container.resources ?? {});
  const any = resources.some(
    (resource) => Object.keys(resource.requests ?? {}).length || Object.keys(resource.limits ?? {}).length,
  );
  if (!any) return 'BestEffort';
  const same = (a: string | number | undefined, b: string | number | undefined) =>
    a !== undefined &&
    b !== undefined &&
    isQuantity(String(a)) &&
    isQuantity(String(b)) &&
    cpuMillicores(a) === cpuMillicores(b);
  const guaranteed = resources.every((resource) =>
    ['cpu', 'memory'].every((name) => same(resource.requests?.[name], resource.limits?.[name])),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
