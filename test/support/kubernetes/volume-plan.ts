import { downwardValue } from './container-environment.js';
import { ContainerWaiting, type KubeletContext } from './kubelet.js';
import type { KeyToPath, Pod, Secret, Volume } from './objects.js';
import { wholeUnits } from './quantity.js';

/**
 * What each of a pod's volumes holds, as the kubelet's volume manager would mount it before the
 * container starts (https://kubernetes.io/docs/concepts/storage/volumes/):
 * - `secret`: one file per key (or per listed item, at its path), with defaultMode or the item's
 *   mode. A Secret that is missing (or an item's key), unless optional, keeps the pod in
 *   ContainerCreating until it appears.
 * - `projected`: the same from several sources; the service-account token volume the admission
 *   adds holds `token`, `ca.crt` and `namespace`.
 * - `emptyDir`: an empty directory (in memory with `medium: Memory`).
 * Other volume types are not mounted by the double's kubelets (CreateContainerError).
 */
export interface VolumeFile {
  /** Relative to the volume, e.g. `token` or `dir/key`. */
  path: string;
  content: Buffer;
  mode: number;
}

export type VolumePlan =
  | { name: string; kind: 'files'; files: VolumeFile[] }
  | { name: string; kind: 'emptyDir'; memory: boolean; sizeLimitBytes?: number };

/** The CA bundle the kube-root-ca.crt ConfigMap would carry: the double serves plain HTTP, so none that means anything. */
const PLACEHOLDER_CA = '# the Kubernetes test double serves plain HTTP: no CA\n';

function missingVolumeSource(): ContainerWaiting {
  // The kubelet reports FailedMount events meanwhile; the container waits as ContainerCreating.
  return new ContainerWaiting('ContainerCreating');
}

function secretFiles(
  secret: Secret | undefined,
  items: KeyToPath[] | undefined,
  optional: boolean,
  mode: number,
): VolumeFile[] {
  if (!secret) {
    if (optional) return [];
    throw missingVolumeSource();
  }
  const data = secret.data ?? {};
  if (!items?.length)
    return Object.entries(data).map(([key, value]) => ({
      path: key,
      content: Buffer.from(value, 'base64'),
      mode,
    }));
  const files: VolumeFile[] = [];
  for (const item of items) {
    const value = data[item.key];
    if (value === undefined) {
      if (optional) continue;
      throw missingVolumeSource();
    }
    files.push({ path: item.path, content: Buffer.from(value, 'base64'), mode: item.mode ?? mode });
  }
  return files;
}

function planOf(pod: Pod, volume: Volume, context: KubeletContext, address: string): VolumePlan {
  const namespace = pod.metadata.namespace ?? '';
  if (volume.secret) {
    const source = volume.secret;
    return {
      name: volume.name,
      kind: 'files',
      files: secretFiles(
        context.secret(namespace, source.secretName ?? ''),
        source.items,
        source.optional === true,
        source.defaultMode ?? 0o644,
      ),
    };
  }
  if (volume.projected) {
    const mode = volume.projected.defaultMode ?? 0o644;
    const files: VolumeFile[] = [];
    for (const source of volume.projected.sources ?? []) {
      if (source.secret) {
        const reference = source.secret;
        files.push(
          ...secretFiles(
            context.secret(namespace, reference.name ?? ''),
            reference.items,
            reference.optional === true,
            mode,
          ),
        );
      } else if (source.serviceAccountToken) {
        files.push({
          path: source.serviceAccountToken.path,
          content: Buffer.from(context.serviceAccountToken(pod)),
          mode,
        });
      } else if (source.downwardAPI) {
        for (const item of source.downwardAPI.items ?? []) {
          if (!item.fieldRef) continue;
          const value = downwardValue(pod, item.fieldRef.fieldPath, address);
          files.push({ path: item.path, content: Buffer.from(value), mode: item.mode ?? mode });
        }
      } else if (source.configMap) {
        if (source.configMap.name !== 'kube-root-ca.crt') {
          if (source.configMap.optional === true) continue;
          throw missingVolumeSource();
        }
        files.push({ path: 'ca.crt', content: Buffer.from(PLACEHOLDER_CA), mode });
      }
    }
    return { name: volume.name, kind: 'files', files };
  }
  if (volume.emptyDir) {
    const limit = volume.emptyDir.sizeLimit;
    return {
      name: volume.name,
      kind: 'emptyDir',
      memory: volume.emptyDir.medium === 'Memory',
      ...(limit !== undefined && { sizeLimitBytes: wholeUnits(limit) }),
    };
  }
  const type = Object.keys(volume).find((key) => key !== 'name') ?? 'unknown';
  throw new ContainerWaiting(
    'CreateContainerError',
    `the Kubernetes test double does not mount ${type} volumes (volume "${volume.name}")`,
  );
}

export function planVolumes(pod: Pod, context: KubeletContext, address: string): VolumePlan[] {
  return (pod.spec.volumes ?? []).map((volume) => planOf(pod, volume, context, address));
}
