import { KubeConfig } from '@kubernetes/client-node';

/**
 * How clients reach the double: a kubeconfig with one cluster (its plain-HTTP URL, so
 * `insecure-skip-tls-verify` is set: @kubernetes/client-node refuses an http server otherwise), one
 * user with a bearer token, and a context naming the default namespace.
 */
export interface KubeconfigParts {
  server: string;
  token: string;
  user: string;
  namespace: string;
}

const CLUSTER = 'kubernetes-double';

export function kubeConfigOf(parts: KubeconfigParts): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: CLUSTER, server: parts.server, skipTLSVerify: true }],
    users: [{ name: parts.user, token: parts.token }],
    contexts: [{ name: CLUSTER, cluster: CLUSTER, user: parts.user, namespace: parts.namespace }],
    currentContext: CLUSTER,
  });
  return config;
}

/** The same as a kubeconfig file's text (for KUBECONFIG, or a worker process started apart). */
export function kubeconfigYamlOf(parts: KubeconfigParts): string {
  const quote = (text: string) => JSON.stringify(text);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${CLUSTER}`,
    '  cluster:',
    `    server: ${quote(parts.server)}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${quote(parts.user)}`,
    '  user:',
    `    token: ${quote(parts.token)}`,
    'contexts:',
    `- name: ${CLUSTER}`,
    '  context:',
    `    cluster: ${CLUSTER}`,
    `    user: ${quote(parts.user)}`,
    `    namespace: ${quote(parts.namespace)}`,
    `current-context: ${CLUSTER}`,
    '',
  ].join('\n');
}
