import { z } from 'zod';
import { badRequest } from './api-errors.js';

/**
 * The wire shapes of the objects the double serves, as far as it reads them (zod at the HTTP
 * boundary). Objects are loose: fields the double does not read are kept as sent. A body whose
 * fields have the wrong JSON types is refused with 400, as the API server's decoder refuses it.
 */
const StringMap = z.record(z.string(), z.string());
/** Quantities are strings on the wire; the decoder takes plain JSON numbers too. */
const Quantity = z.union([z.string(), z.number()]);
const ResourceList = z.record(z.string(), Quantity);

export const OwnerReferenceSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReferenceSchema>;

export const ObjectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  deletionGracePeriodSeconds: z.number().int().optional(),
  labels: StringMap.optional(),
  annotations: StringMap.optional(),
  ownerReferences: z.array(OwnerReferenceSchema).optional(),
  finalizers: z.array(z.string()).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;

/** Any object the store keeps. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

const SeccompProfileSchema = z.looseObject({
  type: z.string(),
  localhostProfile: z.string().optional(),
});

const SecurityContextSchema = z.looseObject({
  runAsUser: z.number().int().optional(),
  runAsGroup: z.number().int().optional(),
  runAsNonRoot: z.boolean().optional(),
  readOnlyRootFilesystem: z.boolean().optional(),
  allowPrivilegeEscalation: z.boolean().optional(),
  privileged: z.boolean().optional(),
  capabilities: z
    .looseObject({ add: z.array(z.string()).optional(), drop: z.array(z.string()).optional() })
    .optional(),
  seccompProfile: SeccompProfileSchema.optional(),
});
export type SecurityContext = z.infer<typeof SecurityContextSchema>;

const PodSecurityContextSchema = z.looseObject({
  runAsUser: z.number().int().optional(),
  runAsGroup: z.number().int().optional(),
  runAsNonRoot: z.boolean().optional(),
  fsGroup: z.number().int().optional(),
  supplementalGroups: z.array(z.number().int()).optional(),
  seccompProfile: SeccompProfileSchema.optional(),
});
export type PodSecurityContext = z.infer<typeof PodSecurityContextSchema>;

const ObjectFieldSelectorSchema = z.looseObject({ fieldPath: z.string(), apiVersion: z.string().optional() });
const KeySelectorSchema = z.looseObject({
  name: z.string().optional(),
  key: z.string(),
  optional: z.boolean().optional(),
});

const EnvVarSchema = z.looseObject({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z
    .looseObject({
      fieldRef: ObjectFieldSelectorSchema.optional(),
      secretKeyRef: KeySelectorSchema.optional(),
      configMapKeyRef: KeySelectorSchema.optional(),
      resourceFieldRef: z.looseObject({ resource: z.string() }).optional(),
    })
    .optional(),
});
export type EnvVar = z.infer<typeof EnvVarSchema>;

const EnvFromSchema = z.looseObject({
  prefix: z.string().optional(),
  secretRef: z.looseObject({ name: z.string().optional(), optional: z.boolean().optional() }).optional(),
  configMapRef: z.looseObject({ name: z.string().optional(), optional: z.boolean().optional() }).optional(),
});

const VolumeMountSchema = z.looseObject({
  name: z.string(),
  mountPath: z.string(),
  subPath: z.string().optional(),
  readOnly: z.boolean().optional(),
});
export type VolumeMount = z.infer<typeof VolumeMountSchema>;

const ContainerSchema = z.looseObject({
  name: z.string(),
  image: z.string().optional(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  workingDir: z.string().optional(),
  env: z.array(EnvVarSchema).optional(),
  envFrom: z.array(EnvFromSchema).optional(),
  resources: z.looseObject({ requests: ResourceList.optional(), limits: ResourceList.optional() }).optional(),
  securityContext: SecurityContextSchema.optional(),
  volumeMounts: z.array(VolumeMountSchema).optional(),
  terminationMessagePath: z.string().optional(),
  terminationMessagePolicy: z.string().optional(),
  imagePullPolicy: z.string().optional(),
});
export type Container = z.infer<typeof ContainerSchema>;

const KeyToPathSchema = z.looseObject({
  key: z.string(),
  path: z.string(),
  mode: z.number().int().optional(),
});
export type KeyToPath = z.infer<typeof KeyToPathSchema>;

const SecretVolumeSourceSchema = z.looseObject({
  secretName: z.string().optional(),
  items: z.array(KeyToPathSchema).optional(),
  defaultMode: z.number().int().optional(),
  optional: z.boolean().optional(),
});

const ProjectionSchema = z.looseObject({
  secret: z
    .looseObject({
      name: z.string().optional(),
      items: z.array(KeyToPathSchema).optional(),
      optional: z.boolean().optional(),
    })
    .optional(),
  serviceAccountToken: z
    .looseObject({
      path: z.string(),
      expirationSeconds: z.number().int().optional(),
      audience: z.string().optional(),
    })
    .optional(),
  downwardAPI: z
    .looseObject({
      items: z
        .array(
          z.looseObject({
            path: z.string(),
            fieldRef: ObjectFieldSelectorSchema.optional(),
            mode: z.number().int().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  configMap: z.looseObject({ name: z.string().optional() }).optional(),
});
export type Projection = z.infer<typeof ProjectionSchema>;

const VolumeSchema = z.looseObject({
  name: z.string(),
  secret: SecretVolumeSourceSchema.optional(),
  emptyDir: z.looseObject({ medium: z.string().optional(), sizeLimit: Quantity.optional() }).optional(),
  projected: z
    .looseObject({ sources: z.array(ProjectionSchema).optional(), defaultMode: z.number().int().optional() })
    .optional(),
});
export type Volume = z.infer<typeof VolumeSchema>;

const PodConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastProbeTime: z.string().nullable().optional(),
  lastTransitionTime: z.string().optional(),
});
export type PodCondition = z.infer<typeof PodConditionSchema>;

const ContainerStateSchema = z.looseObject({
  waiting: z.looseObject({ reason: z.string().optional(), message: z.string().optional() }).optional(),
  running: z.looseObject({ startedAt: z.string().optional() }).optional(),
  terminated: z
    .looseObject({
      exitCode: z.number().int(),
      signal: z.number().int().optional(),
      reason: z.string().optional(),
      message: z.string().optional(),
      startedAt: z.string().optional(),
      finishedAt: z.string().optional(),
      containerID: z.string().optional(),
    })
    .optional(),
});
export type ContainerState = z.infer<typeof ContainerStateSchema>;

const ContainerStatusSchema = z.looseObject({
  name: z.string(),
  state: ContainerStateSchema.optional(),
  lastState: ContainerStateSchema.optional(),
  ready: z.boolean(),
  restartCount: z.number().int(),
  image: z.string(),
  imageID: z.string(),
  containerID: z.string().optional(),
  started: z.boolean().optional(),
});
export type ContainerStatus = z.infer<typeof ContainerStatusSchema>;

const PodStatusSchema = z.looseObject({
  phase: z.string().optional(),
  conditions: z.array(PodConditionSchema).optional(),
  containerStatuses: z.array(ContainerStatusSchema).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  hostIP: z.string().optional(),
  podIP: z.string().optional(),
  startTime: z.string().optional(),
  qosClass: z.string().optional(),
});
export type PodStatus = z.infer<typeof PodStatusSchema>;

const TolerationSchema = z.looseObject({
  key: z.string().optional(),
  operator: z.string().optional(),
  value: z.string().optional(),
  effect: z.string().optional(),
  tolerationSeconds: z.number().int().optional(),
});

const PodSpecSchema = z.looseObject({
  containers: z.array(ContainerSchema).optional(),
  initContainers: z.array(ContainerSchema).optional(),
  ephemeralContainers: z.array(z.unknown()).optional(),
  volumes: z.array(VolumeSchema).optional(),
  restartPolicy: z.string().optional(),
  terminationGracePeriodSeconds: z.number().int().optional(),
  activeDeadlineSeconds: z.number().int().optional(),
  nodeName: z.string().optional(),
  nodeSelector: StringMap.optional(),
  schedulerName: z.string().optional(),
  securityContext: PodSecurityContextSchema.optional(),
  automountServiceAccountToken: z.boolean().optional(),
  serviceAccountName: z.string().optional(),
  serviceAccount: z.string().optional(),
  priority: z.number().int().optional(),
  enableServiceLinks: z.boolean().optional(),
  hostNetwork: z.boolean().optional(),
  tolerations: z.array(TolerationSchema).optional(),
});
export type PodSpec = z.infer<typeof PodSpecSchema>;

export const PodSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaSchema.default({}),
  spec: PodSpecSchema.default({}),
  status: PodStatusSchema.optional(),
});
export type Pod = z.infer<typeof PodSchema>;

export const SecretSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaSchema.default({}),
  type: z.string().optional(),
  data: StringMap.optional(),
  stringData: StringMap.optional(),
  immutable: z.boolean().optional(),
});
export type Secret = z.infer<typeof SecretSchema>;

export const NodeSchema = z.looseObject({
  metadata: ObjectMetaSchema,
  spec: z.looseObject({ unschedulable: z.boolean().optional() }).default({}),
  status: z.looseObject({ allocatable: ResourceList.optional() }).default({}),
});
export type Node = z.infer<typeof NodeSchema>;

export const LabelSelectorObjectSchema = z.looseObject({
  matchLabels: StringMap.optional(),
  matchExpressions: z
    .array(z.looseObject({ key: z.string(), operator: z.string(), values: z.array(z.string()).optional() }))
    .optional(),
});
export type LabelSelectorObject = z.infer<typeof LabelSelectorObjectSchema>;

export const DeleteOptionsSchema = z.looseObject({
  gracePeriodSeconds: z.number().int().optional(),
  propagationPolicy: z.string().optional(),
  preconditions: z
    .looseObject({ uid: z.string().optional(), resourceVersion: z.string().optional() })
    .optional(),
  dryRun: z.array(z.string()).optional(),
});
export type DeleteOptions = z.infer<typeof DeleteOptionsSchema>;

export const EvictionSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMetaSchema.default({}),
  deleteOptions: DeleteOptionsSchema.optional(),
});

/** JSON `null` is the zero value to the API server's decoder: an absent field. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) if (entry !== null) out[key] = withoutNulls(entry);
  return out;
}

/** Decodes a body into a shape, or answers 400 as the decoder does (`Pod in version "v1" cannot be handled as a Pod: …`). */
export function decode<T>(schema: z.ZodType<T>, kind: string, body: unknown): T {
  const result = schema.safeParse(withoutNulls(body));
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where =
    issue?.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('') ?? '';
  throw badRequest(
    `${kind} in version "v1" cannot be handled as a ${kind}: ${where.replace(/^\./, '') || 'body'}: ${issue?.message ?? 'malformed'}`,
  );
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** The API's timestamps: RFC 3339 in seconds (metav1.Time). */
export function timestamp(at: Date = new Date()): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}
