import { isDeepStrictEqual } from 'node:util';
import type { StatusCause } from './api-errors.js';
import {
  duplicate,
  forbiddenField,
  invalidValue,
  notFoundValue,
  notSupported,
  required,
} from './field-errors.js';
import {
  configKeyProblems,
  dns1123LabelProblems,
  envVarNameProblems,
  labelValueProblems,
  qualifiedNameProblems,
} from './names.js';
import type { Container, Pod, PodSpec, Volume } from './objects.js';
import { isQuantity, parseQuantity, QUANTITY_FORMAT_MESSAGE } from './quantity.js';

/**
 * Pod validation as the API server does it (pkg/apis/core/validation: ValidatePodCreate and
 * ValidatePodUpdate), for the fields the double reads, plus the one limit of the double itself:
 * a pod of exactly one container (its kubelets run one).
 */
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const SECCOMP_TYPES = ['RuntimeDefault', 'Unconfined', 'Localhost'];
const FIELD_REFS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const VOLUME_TYPES = [
  'secret',
  'emptyDir',
  'projected',
  'configMap',
  'hostPath',
  'downwardAPI',
  'persistentVolumeClaim',
  'nfs',
  'csi',
  'ephemeral',
];

export function podProblems(pod: Pod): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = pod.spec;
  const volumeNames = new Set<string>();
  for (const [index, volume] of (spec.volumes ?? []).entries()) {
    causes.push(...volumeProblems(volume, `spec.volumes[${index}]`));
    if (volumeNames.has(volume.name)) causes.push(duplicate(`spec.volumes[${index}].name`, volume.name));
    volumeNames.add(volume.name);
  }
  const containers = spec.containers ?? [];
  if (!containers.length) causes.push(required('spec.containers'));
  const containerNames = new Set<string>();
  for (const [index, container] of containers.entries()) {
    const field = `spec.containers[${index}]`;
    causes.push(...containerProblems(container, field, volumeNames));
    if (containerNames.has(container.name)) causes.push(duplicate(`${field}.name`, container.name));
    containerNames.add(container.name);
  }
  if (containers.length > 1)
    causes.push(
      forbiddenField('spec.containers', 'the Kubernetes test double runs pods of exactly one container'),
    );
  if (spec.initContainers?.length)
    causes.push(forbiddenField('spec.initContainers', 'the Kubernetes test double runs no init containers'));
  if (spec.ephemeralContainers?.length)
    causes.push(
      forbiddenField('spec.ephemeralContainers', 'the Kubernetes test double runs no ephemeral containers'),
    );
  if (spec.restartPolicy && !RESTART_POLICIES.includes(spec.restartPolicy))
    causes.push(notSupported('spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES));
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds < 0)
    causes.push(
      invalidValue(
        'spec.terminationGracePeriodSeconds',
        spec.terminationGracePeriodSeconds,
        'must be greater than or equal to 0',
      ),
    );
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    for (const problem of qualifiedNameProblems(key))
      causes.push(invalidValue('spec.nodeSelector', key, problem));
    for (const problem of labelValueProblems(value))
      causes.push(invalidValue('spec.nodeSelector', value, problem));
  }
  const security = spec.securityContext ?? {};
  causes.push(...idProblems(security, 'spec.securityContext'));
  if (security.fsGroup !== undefined && security.fsGroup < 0)
    causes.push(
      invalidValue(
        'spec.securityContext.fsGroup',
        security.fsGroup,
        'must be between 0 and 2147483647, inclusive',
      ),
    );
  causes.push(...seccompProblems(security.seccompProfile, 'spec.securityContext.seccompProfile'));
  return causes;
}

function idProblems(context: { runAsUser?: number; runAsGroup?: number }, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of ['runAsUser', 'runAsGroup'] as const) {
    const value = context[key];
    if (value !== undefined && (value < 0 || value > 2147483647))
      causes.push(invalidValue(`${field}.${key}`, value, 'must be between 0 and 2147483647, inclusive'));
  }
  return causes;
}

function seccompProblems(
  profile: { type: string; localhostProfile?: string } | undefined,
  field: string,
): StatusCause[] {
  if (!profile) return [];
  if (!SECCOMP_TYPES.includes(profile.type))
    return [notSupported(`${field}.type`, profile.type, SECCOMP_TYPES)];
  if (profile.type === 'Localhost' && !profile.localhostProfile)
    return [required(`${field}.localhostProfile`, 'must be set when seccomp type is Localhost')];
  if (profile.type !== 'Localhost' && profile.localhostProfile !== undefined)
    return [
      invalidValue(
        `${field}.localhostProfile`,
        profile.localhostProfile,
        'can only be set when seccomp type is Localhost',
      ),
    ];
  return [];
}

function relativePathProblems(path: string, field: string): StatusCause[] {
  if (path.startsWith('/')) return [invalidValue(field, path, 'must be a relative path')];
  if (path.split('/').includes('..')) return [invalidValue(field, path, "must not contain '..'")];
  return [];
}

function modeProblems(mode: number | undefined, field: string): StatusCause[] {
  return mode !== undefined && (mode < 0 || mode > 0o777)
    ? [invalidValue(field, mode, 'must be a number between 0 and 0777 (octal), both inclusive')]
    : [];
}

function volumeProblems(volume: Volume, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const problem of dns1123LabelProblems(volume.name))
    causes.push(invalidValue(`${field}.name`, volume.name, problem));
  const types = VOLUME_TYPES.filter((type) => volume[type] !== undefined);
  if (!types.length) causes.push(required(field, 'must specify a volume type'));
  for (const type of types.slice(1))
    causes.push(forbiddenField(`${field}.${type}`, 'may not specify more than 1 volume type'));
  if (volume.secret) {
    if (!volume.secret.secretName) causes.push(required(`${field}.secret.secretName`));
    causes.push(...modeProblems(volume.secret.defaultMode, `${field}.secret.defaultMode`));
    for (const [index, item] of (volume.secret.items ?? []).entries()) {
      causes.push(...relativePathProblems(item.path, `${field}.secret.items[${index}].path`));
      causes.push(...modeProblems(item.mode, `${field}.secret.items[${index}].mode`));
    }
  }
  const sizeLimit = volume.emptyDir?.sizeLimit;
  if (sizeLimit !== undefined && !isQuantity(String(sizeLimit)))
    causes.push(invalidValue(`${field}.emptyDir.sizeLimit`, sizeLimit, QUANTITY_FORMAT_MESSAGE));
  return causes;
}

function containerProblems(container: Container, field: string, volumeNames: Set<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!container.name) causes.push(required(`${field}.name`));
  else
    for (const problem of dns1123LabelProblems(container.name))
      causes.push(invalidValue(`${field}.name`, container.name, problem));
  if (!container.image) causes.push(required(`${field}.image`));
  for (const [index, env] of (container.env ?? []).entries()) {
    const envField = `${field}.env[${index}]`;
    if (!env.name) causes.push(required(`${envField}.name`));
    else
      for (const problem of envVarNameProblems(env.name))
        causes.push(invalidValue(`${envField}.name`, env.name, problem));
    const from = env.valueFrom;
    if (!from) continue;
    const sources = ['fieldRef', 'secretKeyRef', 'configMapKeyRef', 'resourceFieldRef'].filter(
      (key) => from[key] !== undefined,
    );
    if (env.value)
      causes.push(
        invalidValue(`${envField}.valueFrom`, '', 'may not be specified when `value` is not empty'),
      );
    if (sources.length !== 1)
      causes.push(
        invalidValue(
          `${envField}.valueFrom`,
          '',
          sources.length
            ? 'may not have more than one field specified at a time'
            : 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        ),
      );
    const path = from.fieldRef?.fieldPath;
    if (
      path !== undefined &&
      !FIELD_REFS.includes(path) &&
      !/^metadata\.(labels|annotations)\['[^']+'\]$/.test(path)
    )
      causes.push(notSupported(`${envField}.valueFrom.fieldRef.fieldPath`, path, FIELD_REFS));
    const key = from.secretKeyRef?.key;
    if (key !== undefined)
      for (const problem of configKeyProblems(key))
        causes.push(invalidValue(`${envField}.valueFrom.secretKeyRef.key`, key, problem));
  }
  causes.push(...resourceProblems(container, `${field}.resources`));
  const mountPaths = new Set<string>();
  for (const [index, mount] of (container.volumeMounts ?? []).entries()) {
    const mountField = `${field}.volumeMounts[${index}]`;
    if (!volumeNames.has(mount.name)) causes.push(notFoundValue(`${mountField}.name`, mount.name));
    if (!mount.mountPath) causes.push(required(`${mountField}.mountPath`));
    else if (mountPaths.has(mount.mountPath))
      causes.push(invalidValue(`${mountField}.mountPath`, mount.mountPath, 'must be unique'));
    mountPaths.add(mount.mountPath);
    if (mount.subPath) causes.push(...relativePathProblems(mount.subPath, `${mountField}.subPath`));
  }
  const security = container.securityContext ?? {};
  causes.push(...idProblems(security, `${field}.securityContext`));
  causes.push(...seccompProblems(security.seccompProfile, `${field}.securityContext.seccompProfile`));
  if (security.privileged && security.allowPrivilegeEscalation === false)
    causes.push(
      invalidValue(
        `${field}.securityContext`,
        'privileged',
        'cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
      ),
    );
  return causes;
}

function resourceProblems(container: Container, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const { requests = {}, limits = {} } = container.resources ?? {};
  for (const [kind, list] of [
    ['requests', requests],
    ['limits', limits],
  ] as const) {
    for (const [name, quantity] of Object.entries(list)) {
      if (!isQuantity(String(quantity)))
        causes.push(invalidValue(`${field}.${kind}[${name}]`, quantity, QUANTITY_FORMAT_MESSAGE));
      else if (parseQuantity(quantity) < 0)
        causes.push(
          invalidValue(`${field}.${kind}[${name}]`, quantity, 'must be greater than or equal to 0'),
        );
    }
  }
  for (const [name, request] of Object.entries(requests)) {
    const limit = limits[name];
    if (limit === undefined || !isQuantity(String(limit)) || !isQuantity(String(request))) continue;
    if (parseQuantity(request) > parseQuantity(limit))
      causes.push(
        invalidValue(
          `${field}.requests`,
          String(request),
          `must be less than or equal to ${name} limit of ${limit}`,
        ),
      );
  }
  return causes;
}

/** What a pod update may change in the spec (ValidatePodUpdate): the images, the deadline, and added tolerations. */
export function podUpdateProblems(next: Pod, old: Pod): StatusCause[] {
  const comparable = (spec: PodSpec, images: PodSpec) => {
    const copy = structuredClone(spec);
    for (const [index, container] of (copy.containers ?? []).entries())
      container.image = images.containers?.[index]?.image;
    delete copy.activeDeadlineSeconds;
    delete copy.tolerations;
    return copy;
  };
  const tolerationsKept = (old.spec.tolerations ?? []).every((toleration) =>
    (next.spec.tolerations ?? []).some((candidate) => isDeepStrictEqual(candidate, toleration)),
  );
  if (isDeepStrictEqual(comparable(next.spec, old.spec), comparable(old.spec, old.spec)) && tolerationsKept)
    return [];
  return [
    forbiddenField(
      'spec',
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    ),
  ];
}
