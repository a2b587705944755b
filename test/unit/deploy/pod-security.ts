import type { KubernetesObject } from './kustomize.js';

/**
 * The checks of the Pod Security Standards' `restricted` level (which includes `baseline`), as
 * Pod Security admission applies them to a pod, for the fields these manifests and the bot runtime
 * use: a pod in the namespace `meetbot` that fails one is refused by the API server.
 */

interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  procMount?: string;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  seLinuxOptions?: { type?: string; user?: string; role?: string };
}

interface Container {
  name: string;
  ports?: { hostPort?: number }[];
  securityContext?: SecurityContext;
}

export interface PodSpec {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: SecurityContext & { sysctls?: { name: string }[] };
  volumes?: Record<string, unknown>[];
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
}

const RESTRICTED_VOLUME_TYPES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const BASELINE_SELINUX_TYPES = new Set([
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);

/** Why the `restricted` level refuses this pod; empty when it admits it. */
export function restrictedProblems(spec: PodSpec, where: string): string[] {
  const problems: string[] = [];
  const pod = spec.securityContext ?? {};
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) problems.push(`${where}: shares a host namespace`);
  for (const volume of spec.volumes ?? []) {
    const type = Object.keys(volume).find((key) => key !== 'name');
    if (!type || !RESTRICTED_VOLUME_TYPES.has(type))
      problems.push(`${where}: volume ${String(volume.name)} is ${type}`);
  }
  for (const sysctl of pod.sysctls ?? [])
    if (!SAFE_SYSCTLS.has(sysctl.name)) problems.push(`${where}: sysctl ${sysctl.name}`);
  if (pod.runAsUser === 0) problems.push(`${where}: the pod runs as root`);
  if (pod.seccompProfile?.type === 'Unconfined') problems.push(`${where}: the pod's seccomp is Unconfined`);
  problems.push(...contextProblems(pod, `${where} (pod)`));

  const containers = [
    ...spec.containers,
    ...(spec.initContainers ?? []),
    ...(spec.ephemeralContainers ?? []),
  ];
  for (const container of containers) {
    const at = `${where} container ${container.name}`;
    const own = container.securityContext ?? {};
    if (own.privileged) problems.push(`${at}: privileged`);
    if (own.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
    if (!(own.runAsNonRoot === true || (pod.runAsNonRoot === true && own.runAsNonRoot !== false)))
      problems.push(`${at}: runAsNonRoot is not true`);
    if (own.runAsUser === 0) problems.push(`${at}: runs as root`);
    const seccomp = own.seccompProfile?.type ?? pod.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
      problems.push(`${at}: seccomp profile ${seccomp ?? 'unset'}`);
    if (!own.capabilities?.drop?.includes('ALL')) problems.push(`${at}: does not drop ALL capabilities`);
    for (const capability of own.capabilities?.add ?? [])
      if (capability !== 'NET_BIND_SERVICE') problems.push(`${at}: adds ${capability}`);
    if (own.procMount !== undefined && own.procMount !== 'Default')
      problems.push(`${at}: procMount ${own.procMount}`);
    for (const port of container.ports ?? [])
      if (port.hostPort !== undefined && port.hostPort !== 0)
        problems.push(`${at}: hostPort ${port.hostPort}`);
    problems.push(...contextProblems(own, at));
  }
  return problems;
}

function contextProblems(context: SecurityContext, at: string): string[] {
  const problems: string[] = [];
  if (context.appArmorProfile?.type === 'Unconfined') problems.push(`${at}: AppArmor Unconfined`);
  if (context.seccompProfile?.type === 'Unconfined') problems.push(`${at}: seccomp Unconfined`);
  const selinux = context.seLinuxOptions;
  if (selinux && (!BASELINE_SELINUX_TYPES.has(selinux.type ?? '') || selinux.user || selinux.role))
    problems.push(`${at}: SELinux options`);
  return problems;
}

/** The pod spec of a Pod, or of the template of a workload that makes pods. */
export function podSpecOf(object: KubernetesObject): PodSpec | undefined {
  const spec = object.spec as Record<string, unknown> | undefined;
  if (object.kind === 'Pod') return spec as unknown as PodSpec;
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job'].includes(object.kind))
    return (spec as { template: { spec: PodSpec } }).template.spec;
  if (object.kind === 'CronJob') throw new Error('CronJobs are not checked here');
  return undefined;
}

/** The labels of the pods a workload makes (a Pod's own). */
export function podLabelsOf(object: KubernetesObject): Record<string, string> {
  if (object.kind === 'Pod') return object.metadata.labels ?? {};
  const template = (object.spec as { template?: { metadata?: { labels?: Record<string, string> } } })
    .template;
  return template?.metadata?.labels ?? {};
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Whether a label selector selects these labels (an empty selector selects everything). */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    if (labels[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const value = labels[expression.key];
    const values = expression.values ?? [];
    if (expression.operator === 'In' && (value === undefined || !values.includes(value))) return false;
    if (expression.operator === 'NotIn' && value !== undefined && values.includes(value)) return false;
    if (expression.operator === 'Exists' && value === undefined) return false;
    if (expression.operator === 'DoesNotExist' && value !== undefined) return false;
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(expression.operator))
      throw new Error(`unknown selector operator ${expression.operator}`);
  }
  return true;
}
