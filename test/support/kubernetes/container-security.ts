import { ContainerWaiting } from './kubelet.js';
import type { Container, Pod } from './objects.js';

/**
 * A container's effective security settings: the container's securityContext over the pod's
 * (https://kubernetes.io/docs/tasks/configure-pod-container/security-context/), and the kubelet's
 * runAsNonRoot check made before the container is created.
 */
export interface EffectiveSecurity {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot: boolean;
  fsGroup?: number;
  supplementalGroups: number[];
  readOnlyRootFilesystem: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged: boolean;
  capabilitiesAdd: string[];
  capabilitiesDrop: string[];
  seccomp?: { type: string; localhostProfile?: string };
}

export function effectiveSecurity(pod: Pod, container: Container): EffectiveSecurity {
  const podContext = pod.spec.securityContext ?? {};
  const own = container.securityContext ?? {};
  const runAsUser = own.runAsUser ?? podContext.runAsUser;
  const runAsGroup = own.runAsGroup ?? podContext.runAsGroup;
  const allowPrivilegeEscalation = own.allowPrivilegeEscalation;
  const seccomp = own.seccompProfile ?? podContext.seccompProfile;
  return {
    ...(runAsUser !== undefined && { runAsUser }),
    ...(runAsGroup !== undefined && { runAsGroup }),
    runAsNonRoot: (own.runAsNonRoot ?? podContext.runAsNonRoot) === true,
    ...(podContext.fsGroup !== undefined && { fsGroup: podContext.fsGroup }),
    supplementalGroups: podContext.supplementalGroups ?? [],
    readOnlyRootFilesystem: own.readOnlyRootFilesystem === true,
    ...(allowPrivilegeEscalation !== undefined && { allowPrivilegeEscalation }),
    privileged: own.privileged === true,
    capabilitiesAdd: own.capabilities?.add ?? [],
    capabilitiesDrop: own.capabilities?.drop ?? [],
    ...(seccomp && { seccomp }),
  };
}

/**
 * The kubelet's verifyRunAsNonRoot: with runAsNonRoot, a container whose user would be root — its
 * runAsUser 0, or no runAsUser and an image user that is empty, 0, or a name the kubelet can't tell
 * is not root — is not created (CreateContainerConfigError, in the kubelet's words).
 */
export function checkRunAsNonRoot(
  pod: Pod,
  container: Container,
  security: EffectiveSecurity,
  imageUser: string,
): void {
  if (!security.runAsNonRoot) return;
  const where = `pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${container.name}`;
  if (security.runAsUser !== undefined) {
    if (security.runAsUser === 0)
      throw new ContainerWaiting(
        'CreateContainerConfigError',
        `container's runAsUser breaks non-root policy (${where})`,
      );
    return;
  }
  const user = imageUser.split(':')[0] ?? '';
  if (user === '' || user === '0')
    throw new ContainerWaiting(
      'CreateContainerConfigError',
      `container has runAsNonRoot and image will run as root (${where})`,
    );
  if (!/^\d+$/.test(user))
    throw new ContainerWaiting(
      'CreateContainerConfigError',
      `container has runAsNonRoot and image has non-numeric user (${user}), cannot verify user is non-root (${where})`,
    );
}
