import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { BOT_CONFIG_ENV, BOT_CONFIG_FILE_ENV, BOT_USER_ID } from '../../../shared/contract/bot-config.js';
import type { BotContainerSpec } from '../bot-runtime.js';

/** Labels every bot pod carries besides the bot's own (the NetworkPolicy and the PDBs select on them). */
export const BOT_POD_LABELS = {
  'app.kubernetes.io/name': 'meetbot',
  'app.kubernetes.io/component': 'bot',
} as const;

/** The bot's config file, mounted beside its other files (never in its environment). */
export const BOT_CONFIG_FILE = 'bot-config.json';

export interface BotPodOptions {
  namespace: string;
  /** `RuntimeDefault`, or a Localhost profile's path under the kubelet's seccomp directory. */
  seccompProfile: string;
  /** The bot's own directory in the image, where its files go (shared/contract/bot-config.ts). */
  filesDirectory: string;
  /**
   * The CPU a bot pod requests (the scheduler places by it): what a bot costs in a call as measured
   * (worker/fleet/bot-slots.ts, BOT_COST), at most its limit (BOT_CPUS).
   */
  cpuRequestCores: number;
}

const FILES_VOLUME = 'bot-files';
const SHM_VOLUME = 'dshm';
/** Chromium needs a real /dev/shm; the runtime's 64 MB default crashes renderers (as on Docker). */
const SHM_SIZE = '256Mi';
/** Time the bot gets from SIGTERM to leave the call and publish its final event (the Docker stop grace). */
const TERMINATION_GRACE_SECONDS = 30;

/**
 * The Secret of one bot: its config (what was BOT_CONFIG on Docker) and its files (the secrets of
 * the config, a signed-in bot's session). The runtime makes the pod its owner once the pod exists,
 * so deleting the pod deletes it.
 */
export function botSecretManifest(spec: BotContainerSpec, options: BotPodOptions): V1Secret {
  const config = spec.env[BOT_CONFIG_ENV];
  if (config === undefined) throw new Error(`a bot spec without ${BOT_CONFIG_ENV}`);
  const data: Record<string, string> = { [BOT_CONFIG_FILE]: Buffer.from(config, 'utf8').toString('base64') };
  for (const file of spec.files ?? []) {
    if (file.directory !== options.filesDirectory)
      throw new Error(`a bot file outside ${options.filesDirectory}: ${file.directory}/${file.name}`);
    data[file.name] = file.content.toString('base64');
  }
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: spec.name, namespace: options.namespace, labels: podLabels(spec) },
    data,
  };
}

/**
 * The pod of one bot, with the Docker runtime's containment carried over: the image's bot user (never
 * root), every capability dropped, no privilege escalation, Chromium's sandbox under the seccomp
 * profile that allows it, no service-account token, no service links in its environment, and the
 * bot's requests equal to its limits' memory (a bot is never the first one a busy node kills for
 * memory it was promised). Each file of its Secret is mounted read-only into the bot's home by itself
 * (a subPath), so the home stays the image's.
 */
export function botPodManifest(spec: BotContainerSpec, options: BotPodOptions): V1Pod {
  const files = [BOT_CONFIG_FILE, ...(spec.files ?? []).map((file) => file.name)];
  const env = Object.entries(spec.env)
    .filter(([name]) => name !== BOT_CONFIG_ENV)
    .map(([name, value]) => ({ name, value }));
  const memory = `${Math.round(spec.memoryBytes / 2 ** 20)}Mi`;
  const cpuLimit = `${Math.round(spec.nanoCpus / 1e6)}m`;
  const cpuRequest = `${Math.round(Math.min(options.cpuRequestCores * 1e9, spec.nanoCpus) / 1e6)}m`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: spec.name, namespace: options.namespace, labels: podLabels(spec) },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: BOT_USER_ID,
        runAsGroup: BOT_USER_ID,
        fsGroup: BOT_USER_ID,
        seccompProfile: seccompOf(spec, options),
      },
      containers: [
        {
          name: 'bot',
          image: spec.image,
          imagePullPolicy: 'IfNotPresent',
          env: [...env, { name: BOT_CONFIG_FILE_ENV, value: `${options.filesDirectory}/${BOT_CONFIG_FILE}` }],
          resources: {
            requests: { cpu: cpuRequest, memory },
            limits: { cpu: cpuLimit, memory },
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ['ALL'] },
          },
          volumeMounts: [
            ...files.map((name) => ({
              name: FILES_VOLUME,
              mountPath: `${options.filesDirectory}/${name}`,
              subPath: name,
              readOnly: true,
            })),
            { name: SHM_VOLUME, mountPath: '/dev/shm' },
          ],
        },
      ],
      volumes: [
        // 0440 with the bot's group (fsGroup): readable by the bot user and nobody else.
        { name: FILES_VOLUME, secret: { secretName: spec.name, defaultMode: 0o440 } },
        { name: SHM_VOLUME, emptyDir: { medium: 'Memory', sizeLimit: SHM_SIZE } },
      ],
    },
  };
}

function podLabels(spec: BotContainerSpec): Record<string, string> {
  return { ...BOT_POD_LABELS, ...spec.labels };
}

function seccompOf(spec: BotContainerSpec, options: BotPodOptions) {
  // Without Chromium's sandbox (BOT_CHROMIUM_SANDBOX=off) the runtime's default profile, as on Docker.
  if (spec.seccompProfile === null || options.seccompProfile === 'RuntimeDefault')
    return { type: 'RuntimeDefault' };
  return { type: 'Localhost', localhostProfile: options.seccompProfile };
}
