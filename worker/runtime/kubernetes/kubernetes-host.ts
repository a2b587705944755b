import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { BOT_STORAGE_STATE_DIR } from '../../../shared/contract/bot-config.js';
import type { Config } from '../../../shared/infra/config.js';
import type { Logger } from '../../../shared/infra/logger.js';
import type { BotHost } from '../bot-host.js';
import { deploymentName } from '../bot-launch-spec.js';
import { KubernetesRuntime } from './kubernetes-runtime.js';

/** Where a pod finds its own namespace (its service account's). */
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * Bots as pods of the cluster the worker runs in (its service account), or of the one KUBECONFIG
 * (else ~/.kube/config) names. `cpuRequestCores`: what a bot pod asks the scheduler for.
 */
export function kubernetesBotHost(
  config: Config,
  log: Logger,
  cpuRequestCores: number,
  kubeConfig = defaultKubeConfig(),
): BotHost {
  assertPodNameable(deploymentName(config));
  const namespace = config.KUBERNETES_NAMESPACE ?? namespaceOf(kubeConfig);
  const runtime = new KubernetesRuntime(
    kubeConfig,
    {
      namespace,
      seccompProfile: config.BOT_POD_SECCOMP_PROFILE,
      filesDirectory: BOT_STORAGE_STATE_DIR,
      cpuRequestCores,
      unschedulableMs: config.BOT_POD_UNSCHEDULABLE_SECONDS * 1000,
      startTimeoutMs: config.BOT_POD_START_TIMEOUT_SECONDS * 1000,
    },
    log.child({ component: 'kubernetes' }),
  );
  return { runtime, name: config.DOCKER_HOST_NAME ?? `kubernetes:${namespace}` };
}

function defaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  return kubeConfig;
}

function namespaceOf(kubeConfig: KubeConfig): string {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim();
  } catch {
    return kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
  }
}

/**
 * The deployment's name (QUEUE_PREFIX, and its Redis database) names each bot's pod and is a label
 * value of it: Kubernetes takes lowercase letters, digits and `-` there, 63 characters at most.
 */
function assertPodNameable(name: string): void {
  if (/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/.test(name)) return;
  throw new Error(
    `BOT_RUNTIME=kubernetes names each bot's pod after QUEUE_PREFIX (here "${name}"): use lowercase letters, digits and - only, starting and ending with a letter or digit, at most 40 characters`,
  );
}
