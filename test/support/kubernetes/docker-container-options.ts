import type { ContainerCreateOptions, MountConfig } from 'dockerode';
import type { EffectiveSecurity } from './container-security.js';
import type { Container, Pod } from './objects.js';
import { cpuMillicores, wholeUnits } from './quantity.js';

/**
 * A pod's container as Docker create options, the way a kubelet hands it to its runtime:
 * command/args as entrypoint/cmd (a command replaces the image's entrypoint and its cmd), the
 * environment, limits as Memory (swap off) and NanoCpus, the CPU request as CPU shares, the
 * security context (user and groups, capabilities, no_new_privs, read-only root, seccomp), the
 * volumes' mounts and the termination-message file. Containers use the host's network: the engine
 * here runs with --bridge=none, so the pod's IP is the node's (as with hostNetwork: true).
 */
export const DOUBLE_CONTAINER_LABEL = 'meetbot.test/kubernetes-double';

/** A bind mount or tmpfs the container gets. */
export type ContainerMount =
  | { kind: 'bind'; source: string; target: string; readOnly: boolean }
  | { kind: 'tmpfs'; target: string; options: string };

export interface ContainerOptionsInput {
  pod: Pod;
  container: Container;
  attempt: number;
  instance: string;
  environment: Map<string, string>;
  command: string[] | undefined;
  args: string[] | undefined;
  security: EffectiveSecurity;
  imageUser: string;
  /** `seccomp=…` options (none: the engine's default profile). */
  seccompOptions: string[];
  mounts: ContainerMount[];
  shmSizeBytes: number | undefined;
}

/** The Docker name of a pod's container, after the dockershim's `k8s_<container>_<pod>_<namespace>_<uid>_<attempt>`. */
export function containerName(pod: Pod, container: Container, attempt: number): string {
  return [
    'k8s-double',
    container.name,
    pod.metadata.name,
    pod.metadata.namespace,
    pod.metadata.uid,
    attempt,
  ].join('_');
}

/** The user the container runs as: runAsUser and runAsGroup over the image's (unset: the image's own). */
function userOf(security: EffectiveSecurity, imageUser: string): string | undefined {
  if (security.runAsUser === undefined && security.runAsGroup === undefined) return undefined;
  const user = security.runAsUser !== undefined ? String(security.runAsUser) : imageUser.split(':')[0] || '0';
  return security.runAsGroup !== undefined ? `${user}:${security.runAsGroup}` : user;
}

export function dockerContainerOptions(input: ContainerOptionsInput): ContainerCreateOptions {
  const { pod, container, security } = input;
  const limits = container.resources?.limits ?? {};
  const requests = container.resources?.requests ?? {};
  const memory = limits.memory !== undefined ? wholeUnits(limits.memory) : undefined;
  const cpuLimit = limits.cpu !== undefined ? cpuMillicores(limits.cpu) : undefined;
  const cpuRequest = requests.cpu !== undefined ? cpuMillicores(requests.cpu) : undefined;
  const groups = [
    ...(security.fsGroup !== undefined ? [security.fsGroup] : []),
    ...security.supplementalGroups,
  ];
  const user = userOf(security, input.imageUser);
  const binds: MountConfig = input.mounts
    .filter((mount) => mount.kind === 'bind')
    .map((mount) => ({ Type: 'bind', Source: mount.source, Target: mount.target, ReadOnly: mount.readOnly }));
  const tmpfs = Object.fromEntries(
    input.mounts.flatMap((mount) => (mount.kind === 'tmpfs' ? [[mount.target, mount.options]] : [])),
  );
  const securityOptions = [
    ...(security.allowPrivilegeEscalation === false ? ['no-new-privileges'] : []),
    ...input.seccompOptions,
  ];
  return {
    name: containerName(pod, container, input.attempt),
    Image: container.image,
    ...(input.command !== undefined ? { Entrypoint: input.command, Cmd: input.args ?? [] } : {}),
    ...(input.command === undefined && input.args !== undefined ? { Cmd: input.args } : {}),
    ...(container.workingDir ? { WorkingDir: container.workingDir } : {}),
    ...(user !== undefined ? { User: user } : {}),
    // A pod's hostname is its name (with host networking Docker would give the host's).
    Env: [...new Map([['HOSTNAME', pod.metadata.name ?? ''], ...input.environment])].map(
      ([key, value]) => `${key}=${value}`,
    ),
    Labels: {
      [DOUBLE_CONTAINER_LABEL]: input.instance,
      'io.kubernetes.pod.name': pod.metadata.name ?? '',
      'io.kubernetes.pod.namespace': pod.metadata.namespace ?? '',
      'io.kubernetes.pod.uid': pod.metadata.uid ?? '',
      'io.kubernetes.container.name': container.name,
      'io.kubernetes.container.restartCount': String(input.attempt),
    },
    HostConfig: {
      NetworkMode: 'host',
      ...(memory !== undefined ? { Memory: memory, MemorySwap: memory } : {}),
      ...(cpuLimit !== undefined ? { NanoCpus: cpuLimit * 1_000_000 } : {}),
      // The kubelet's cpu.shares from the request (milliCPUToShares): 1024 per core, at least 2.
      CpuShares: cpuRequest !== undefined ? Math.max(2, Math.floor((cpuRequest * 1024) / 1000)) : 2,
      ...(groups.length ? { GroupAdd: groups.map(String) } : {}),
      ...(security.capabilitiesAdd.length ? { CapAdd: security.capabilitiesAdd } : {}),
      ...(security.capabilitiesDrop.length ? { CapDrop: security.capabilitiesDrop } : {}),
      Privileged: security.privileged,
      ReadonlyRootfs: security.readOnlyRootFilesystem,
      ...(securityOptions.length ? { SecurityOpt: securityOptions } : {}),
      ...(binds.length ? { Mounts: binds } : {}),
      ...(Object.keys(tmpfs).length ? { Tmpfs: tmpfs } : {}),
      ...(input.shmSizeBytes !== undefined ? { ShmSize: input.shmSizeBytes } : {}),
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '2' } },
    },
  };
}
