/**
 * The discovery documents (https://kubernetes.io/docs/concepts/overview/kubernetes-api/#discovery-api)
 * for what the double serves: the core group's v1, `policy/v1` (PodDisruptionBudgets, read only),
 * and `metrics.k8s.io/v1beta1` while the metrics API is on. Also /version and the health checks.
 */
interface ServedResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const READ_VERBS = ['get', 'list', 'watch'];

const CORE_RESOURCES: ServedResource[] = [
  { name: 'namespaces', namespaced: false, kind: 'Namespace', verbs: READ_VERBS },
  { name: 'nodes', namespaced: false, kind: 'Node', verbs: READ_VERBS },
  { name: 'pods', namespaced: true, kind: 'Pod', verbs: ALL_VERBS },
  { name: 'pods/eviction', namespaced: true, kind: 'Eviction', verbs: ['create'] },
  { name: 'pods/log', namespaced: true, kind: 'Pod', verbs: ['get'] },
  { name: 'pods/status', namespaced: true, kind: 'Pod', verbs: ['get'] },
  { name: 'secrets', namespaced: true, kind: 'Secret', verbs: ALL_VERBS },
];
const POLICY_RESOURCES: ServedResource[] = [
  { name: 'poddisruptionbudgets', namespaced: true, kind: 'PodDisruptionBudget', verbs: READ_VERBS },
];
const METRICS_RESOURCES: ServedResource[] = [
  { name: 'nodes', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
  { name: 'pods', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
];

function resourceList(groupVersion: string, resources: ServedResource[]) {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: resources.map((resource) => ({ ...resource, singularName: '' })),
  };
}

function group(name: string, version: string) {
  const entry = { groupVersion: `${name}/${version}`, version };
  return { name, versions: [entry], preferredVersion: entry };
}

/** The discovery answer for a non-resource path, or undefined when there is none. */
export function discovery(path: string, metricsEnabled: boolean, address: string): unknown {
  switch (path.replace(/\/$/, '') || '/') {
    case '/api':
      return {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }],
      };
    case '/api/v1':
      return resourceList('v1', CORE_RESOURCES);
    case '/apis':
      return {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [group('policy', 'v1'), ...(metricsEnabled ? [group('metrics.k8s.io', 'v1beta1')] : [])],
      };
    case '/apis/policy':
      return { kind: 'APIGroup', apiVersion: 'v1', ...group('policy', 'v1') };
    case '/apis/policy/v1':
      return resourceList('policy/v1', POLICY_RESOURCES);
    case '/apis/metrics.k8s.io':
      return metricsEnabled
        ? { kind: 'APIGroup', apiVersion: 'v1', ...group('metrics.k8s.io', 'v1beta1') }
        : undefined;
    case '/apis/metrics.k8s.io/v1beta1':
      return metricsEnabled ? resourceList('metrics.k8s.io/v1beta1', METRICS_RESOURCES) : undefined;
    case '/version':
      return {
        major: '1',
        minor: '31',
        gitVersion: 'v1.31.0-meetbot-test-double',
        platform: `linux/${process.arch === 'arm64' ? 'arm64' : 'amd64'}`,
      };
    default:
      return undefined;
  }
}

/** Paths anyone may read without credentials (system:public-info-viewer). */
export const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);
