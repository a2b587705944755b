import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerMount } from './docker-container-options.js';
import type { DockerKubeletOptions } from './docker-kubelet.js';
import { ContainerWaiting } from './kubelet.js';
import type { Container } from './objects.js';
import { wholeUnits } from './quantity.js';
import { subPathSource, writeVolumeFiles } from './volume-files.js';
import type { VolumePlan } from './volume-plan.js';

// What the DockerKubelet prepares before it creates a pod's container: its seccomp option, its
// volumes' files on this host, and the mounts that bring them in.

/** The size Docker (and a pod's sandbox) gives /dev/shm unless told. */
const DEFAULT_SHM_BYTES = 64 * 1024 * 1024;

/**
 * The seccomp profile (https://kubernetes.io/docs/tutorials/security/seccomp/): RuntimeDefault is
 * the engine's default, Unconfined none, Localhost a JSON file under the seccomp directory handed
 * to the engine inline. Without a profile, Unconfined unless the kubelet's seccompDefault is on.
 */
export async function seccompOptionsOf(
  profile: { type: string; localhostProfile?: string } | undefined,
  privileged: boolean,
  options: Pick<DockerKubeletOptions, 'seccompDefault' | 'seccompDirectory'>,
): Promise<string[]> {
  if (privileged) return [];
  const type = profile?.type ?? (options.seccompDefault ? 'RuntimeDefault' : 'Unconfined');
  if (type === 'RuntimeDefault') return [];
  if (type === 'Unconfined') return ['seccomp=unconfined'];
  const path = join(options.seccompDirectory ?? '/var/lib/kubelet/seccomp', profile?.localhostProfile ?? '');
  try {
    return [`seccomp=${JSON.stringify(JSON.parse(await readFile(path, 'utf8')))}`];
  } catch (error) {
    throw new ContainerWaiting(
      'CreateContainerError',
      `failed to generate seccomp spec opts: cannot load seccomp profile "${path}": ${(error as Error).message}`,
    );
  }
}

/** Each secret or projected volume's files, written for this attempt as the kubelet writes them. */
export async function writeVolumes(
  podDirectory: string,
  plans: VolumePlan[],
  fsGroup: number | undefined,
  attempt: number,
) {
  const directories = new Map<string, string>();
  for (const plan of plans) {
    if (plan.kind !== 'files') continue;
    const directory = join(podDirectory, 'volumes', `${plan.name}-${attempt}`);
    await rm(directory, { recursive: true, force: true });
    await writeVolumeFiles(directory, plan.files, fsGroup);
    directories.set(plan.name, directory);
  }
  return directories;
}

/** The container's mounts: files volumes bound read-only, emptyDirs as tmpfs, a memory one at /dev/shm as its size. */
export async function containerMounts(
  container: Container,
  plans: VolumePlan[],
  directories: Map<string, string>,
  fsGroup: number | undefined,
): Promise<{ mounts: ContainerMount[]; shmSizeBytes: number | undefined }> {
  const mounts: ContainerMount[] = [];
  let shmSizeBytes: number | undefined;
  const memoryLimit = container.resources?.limits?.memory;
  for (const mount of container.volumeMounts ?? []) {
    const plan = plans.find((candidate) => candidate.name === mount.name);
    if (!plan) continue;
    if (plan.kind === 'files') {
      const directory = directories.get(plan.name)!;
      const source = mount.subPath ? await subPathSource(directory, mount.subPath) : directory;
      if (!source)
        throw new ContainerWaiting(
          'CreateContainerConfigError',
          `failed to prepare subPath for volumeMount "${mount.name}" of container "${container.name}"`,
        );
      // Secret and projected volumes are always mounted read-only.
      mounts.push({ kind: 'bind', source, target: mount.mountPath, readOnly: true });
      continue;
    }
    // A memory-backed emptyDir is as large as its sizeLimit, else the pod's memory limit.
    const size =
      plan.sizeLimitBytes ?? (plan.memory && memoryLimit !== undefined ? wholeUnits(memoryLimit) : undefined);
    if (mount.mountPath === '/dev/shm') {
      shmSizeBytes = size ?? DEFAULT_SHM_BYTES;
      continue;
    }
    if (mount.subPath)
      throw new ContainerWaiting(
        'CreateContainerConfigError',
        `the Kubernetes test double mounts no subPath of an emptyDir (volumeMount "${mount.name}")`,
      );
    const options = [
      mount.readOnly ? 'ro' : 'rw',
      'mode=1777',
      ...(size !== undefined ? [`size=${size}`] : []),
      ...(fsGroup !== undefined ? [`gid=${fsGroup}`] : []),
    ];
    mounts.push({ kind: 'tmpfs', target: mount.mountPath, options: options.join(',') });
  }
  return { mounts, shmSizeBytes };
}
