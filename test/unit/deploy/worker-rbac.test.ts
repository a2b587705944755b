import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type KubernetesObject, readObjects } from './kustomize.js';

/**
 * The workers' Role grants the verbs the Kubernetes bot runtime uses, in one namespace, and no more.
 * This file proves "no more" and that every call in the runtime's source is granted; that the grant
 * is enough against an API server that refuses what a Role lacks is for the Kubernetes API double's
 * e2e tests (issue 50).
 */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DEPLOY = join(ROOT, 'deploy/kubernetes');

/** The runtime's verbs (worker/runtime/kubernetes/), as issue 50 lists them. */
const EXPECTED_RULES = [
  { apiGroups: [''], resources: ['pods'], verbs: ['create', 'get', 'list', 'watch', 'delete', 'patch'] },
  { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'get', 'list', 'delete', 'patch'] },
  // Optional and read-only: bots' usage from metrics-server.
  { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['get', 'list'] },
];

/** Every RBAC object of the deployment's files, the overlay's and the extras included. */
function rbacObjects(): KubernetesObject[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.yaml') && !entry.name.startsWith('kustomization')) files.push(path);
    }
  };
  walk(DEPLOY);
  return files
    .flatMap(readObjects)
    .filter((object) => object.apiVersion.startsWith('rbac.authorization.k8s.io/'));
}

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

/** (group, resource, verb) triples a list of rules grants. */
function grants(rules: Rule[]): Set<string> {
  const granted = new Set<string>();
  for (const rule of rules)
    for (const group of rule.apiGroups)
      for (const resource of rule.resources)
        for (const verb of rule.verbs) granted.add(`${group}|${resource}|${verb}`);
  return granted;
}

describe("the workers' RBAC (deploy/kubernetes/worker-rbac.yaml)", () => {
  it('is one Role and its RoleBinding in the namespace meetbot: nothing cluster-wide anywhere', () => {
    const objects = rbacObjects();
    expect(
      objects.map((object) => `${object.kind} ${object.metadata.namespace}/${object.metadata.name}`).sort(),
    ).toEqual(['Role meetbot/meetbot-worker', 'RoleBinding meetbot/meetbot-worker']);
  });

  it('grants exactly the verbs the runtime uses: no wildcard, no other resource or verb', () => {
    const role = rbacObjects().find((object) => object.kind === 'Role') as KubernetesObject & {
      rules: Rule[];
    };
    for (const rule of role.rules) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain('*');
      expect(rule.resourceNames).toBeUndefined();
      expect(Object.keys(rule).sort()).toEqual(['apiGroups', 'resources', 'verbs']);
    }
    expect(grants(role.rules)).toEqual(grants(EXPECTED_RULES));
    expect(role.rules.length).toBe(EXPECTED_RULES.length);
  });

  it("binds it to the workers' ServiceAccount only, which only the worker Deployment runs as", () => {
    const binding = rbacObjects().find((object) => object.kind === 'RoleBinding') as KubernetesObject & {
      roleRef: unknown;
      subjects: unknown[];
    };
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'meetbot-worker',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'meetbot-worker', namespace: 'meetbot' },
    ]);
    const accounts = readObjects(join(DEPLOY, 'worker.yaml'))
      .concat(readObjects(join(DEPLOY, 'api.yaml')))
      .filter((object) => object.kind === 'Deployment')
      .map((object) => [
        object.metadata.name,
        (object.spec as { template: { spec: { serviceAccountName: string } } }).template.spec
          .serviceAccountName,
      ]);
    expect(Object.fromEntries(accounts)).toEqual({
      'meetbot-worker': 'meetbot-worker',
      'meetbot-api': 'meetbot-api',
    });
  });

  it('covers every call to the Kubernetes API in the runtime source', () => {
    // What each client call of @kubernetes/client-node asks of the API server. A call not in this
    // table fails the test: add it here, and to the Role if the runtime needs it.
    const CALLS: Record<string, string> = {
      createNamespacedPod: '|pods|create',
      readNamespacedPod: '|pods|get',
      listNamespacedPod: '|pods|list',
      deleteNamespacedPod: '|pods|delete',
      patchNamespacedPod: '|pods|patch',
      readNamespacedPodLog: '|pods/log|get',
      createNamespacedSecret: '|secrets|create',
      readNamespacedSecret: '|secrets|get',
      listNamespacedSecret: '|secrets|list',
      deleteNamespacedSecret: '|secrets|delete',
      patchNamespacedSecret: '|secrets|patch',
      // The runtime's only custom objects: metrics-server's pod metrics (checked below).
      getNamespacedCustomObject: 'metrics.k8s.io|pods|get',
      listNamespacedCustomObject: 'metrics.k8s.io|pods|list',
      // Discovery (GET /apis): every authenticated user may (the cluster's system:discovery role).
      getAPIVersions: '',
    };
    const sources = readdirSync(join(ROOT, 'worker'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((path) => readFileSync(path, 'utf8').includes('@kubernetes/client-node'));
    expect(sources.length).toBeGreaterThan(0);
    const granted = grants(EXPECTED_RULES);
    const used = new Set<string>();
    for (const path of sources) {
      const text = readFileSync(path, 'utf8');
      const file = relative(ROOT, path);
      for (const [, method] of text.matchAll(/\.\s*(\w+)\(\s*\{/g)) {
        if (!/Namespaced|APIVersions|Cluster|ForAllNamespaces|CustomObject/.test(method as string)) continue;
        const need = CALLS[method as string];
        expect(need, `${file} calls ${method}, which this test does not know`).toBeDefined();
        if (need) used.add(need);
      }
      for (const [, path] of text.matchAll(/\.watch\(\s*`([^`]*)`/g)) {
        expect(path, `${file} watches ${path}`).toMatch(/^\/api\/v1\/namespaces\/\$\{[^}]+\}\/pods$/);
        used.add('|pods|watch');
      }
      if (/CustomObject\(/.test(text)) {
        expect(text, file).toContain("'metrics.k8s.io'");
        expect(text, file).toContain("plural: 'pods'");
      }
    }
    used.delete('');
    expect([...used].filter((need) => !granted.has(need))).toEqual([]);
    // The calls that make a bot live: without them the runtime could not work at all.
    for (const need of ['|pods|create', '|pods|watch', '|secrets|create', '|pods|delete'])
      expect(used).toContain(need);
  });
});
