import { ContainerWaiting, type KubeletContext } from './kubelet.js';
import type { Container, Pod } from './objects.js';

/**
 * A container's environment as the kubelet makes it (kubelet_pods.go makeEnvironmentVariables):
 * the API server's service variables (KUBERNETES_SERVICE_HOST and _PORT, here the double's
 * address), then `envFrom` Secrets, then `env` in order — plain values, `fieldRef` to the pod's own
 * fields and `secretKeyRef` — each value expanded against the variables before it (`$(NAME)`;
 * `$$` escapes a `$`). A Secret or key that is missing and not optional keeps the container waiting
 * with CreateContainerConfigError, as on a node.
 */
function configError(message: string): ContainerWaiting {
  return new ContainerWaiting('CreateContainerConfigError', message);
}

/** Kubernetes' `$(VAR)` expansion: known names are replaced, unknown ones kept as written, `$$` is `$`. */
export function expand(text: string, variables: ReadonlyMap<string, string>): string {
  let out = '';
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]!;
    if (char !== '$' || at + 1 >= text.length) {
      out += char;
      continue;
    }
    const next = text[at + 1];
    if (next === '$') {
      out += '$';
      at += 1;
    } else if (next === '(') {
      const close = text.indexOf(')', at + 2);
      if (close < 0) {
        out += text.slice(at);
        break;
      }
      const name = text.slice(at + 2, close);
      out += variables.has(name) ? variables.get(name) : `$(${name})`;
      at = close;
    } else {
      out += char;
    }
  }
  return out;
}

function fieldValue(pod: Pod, path: string, address: string): string {
  const labelOrAnnotation = /^metadata\.(labels|annotations)\['([^']+)'\]$/.exec(path);
  if (labelOrAnnotation) {
    const map = labelOrAnnotation[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[labelOrAnnotation[2]!] ?? '';
  }
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.hostIPs':
    case 'status.podIP':
    case 'status.podIPs':
      return address;
    default:
      throw configError(`unsupported fieldPath: ${path}`);
  }
}

/** A field of the pod as the downward API gives it (env fieldRef, downwardAPI volume items). */
export function downwardValue(pod: Pod, path: string, address: string): string {
  return fieldValue(pod, path, address);
}

export function containerEnvironment(
  pod: Pod,
  container: Container,
  context: KubeletContext,
  address: string,
): Map<string, string> {
  const namespace = pod.metadata.namespace ?? '';
  const variables = new Map<string, string>([
    ['KUBERNETES_SERVICE_HOST', context.apiServer.host],
    ['KUBERNETES_SERVICE_PORT', String(context.apiServer.port)],
    ['KUBERNETES_PORT', `tcp://${context.apiServer.host}:${context.apiServer.port}`],
  ]);
  for (const source of container.envFrom ?? []) {
    const reference = source.secretRef;
    if (source.configMapRef) {
      if (source.configMapRef.optional) continue;
      throw configError(`configmap "${source.configMapRef.name}" not found`);
    }
    if (!reference) continue;
    const secret = context.secret(namespace, reference.name ?? '');
    if (!secret) {
      if (reference.optional) continue;
      throw configError(`secret "${reference.name}" not found`);
    }
    for (const [key, value] of Object.entries(secret.data ?? {}))
      variables.set(`${source.prefix ?? ''}${key}`, Buffer.from(value, 'base64').toString('utf8'));
  }
  for (const entry of container.env ?? []) {
    const from = entry.valueFrom;
    if (!from) {
      variables.set(entry.name, expand(entry.value ?? '', variables));
    } else if (from.fieldRef) {
      variables.set(entry.name, fieldValue(pod, from.fieldRef.fieldPath, address));
    } else if (from.secretKeyRef) {
      const { name = '', key, optional } = from.secretKeyRef;
      const secret = context.secret(namespace, name);
      if (!secret) {
        if (optional) continue;
        throw configError(`secret "${name}" not found`);
      }
      const value = secret.data?.[key];
      if (value === undefined) {
        if (optional) continue;
        throw configError(`couldn't find key ${key} in Secret ${namespace}/${name}`);
      }
      variables.set(entry.name, Buffer.from(value, 'base64').toString('utf8'));
    } else if (from.configMapKeyRef) {
      if (from.configMapKeyRef.optional) continue;
      throw configError(`configmap "${from.configMapKeyRef.name}" not found`);
    } else {
      throw configError(`the Kubernetes test double does not resolve ${Object.keys(from).join(', ')}`);
    }
  }
  return variables;
}

/** The container's command and args with `$(VAR)` expanded, as the kubelet passes them to the runtime. */
export function expandedCommand(container: Container, variables: ReadonlyMap<string, string>) {
  return {
    command: container.command?.map((part) => expand(part, variables)),
    args: container.args?.map((part) => expand(part, variables)),
  };
}
