import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { grantedPermissions, type Role } from '../../../support/kubernetes/rbac.js';
import { clientsOf, podManifest, refusal } from './clients.js';

/** A Role as a chart would ship it (rbac.authorization.k8s.io/v1). */
const ROLE: Role = {
  metadata: { name: 'meetbot-worker', namespace: 'meetbot' },
  rules: [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
    { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
    { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['get'] },
  ],
};

describe('the Kubernetes API double: RBAC for the service account token', () => {
  let double: KubernetesDouble;
  afterEach(() => double.close());

  it('refuses what the Role does not allow with 403 worded as the API server words it', async () => {
    double = await startKubernetesDouble({ role: ROLE, namespaces: ['meetbot', 'elsewhere'] });
    const { core } = clientsOf(double);
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('p') });

    const deleteRefused = await refusal(core.deleteNamespacedPod({ name: 'p', namespace: 'meetbot' }));
    expect(deleteRefused).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'pods "p" is forbidden: User "system:serviceaccount:meetbot:meetbot-worker" cannot delete resource "pods" in API group "" in the namespace "meetbot"',
      reason: 'Forbidden',
      details: { name: 'p', kind: 'pods' },
      code: 403,
    });
    expect((await refusal(core.listNamespacedSecret({ namespace: 'meetbot' }))).message).toBe(
      'secrets is forbidden: User "system:serviceaccount:meetbot:meetbot-worker" cannot list resource "secrets" in API group "" in the namespace "meetbot"',
    );
    expect(
      (
        await refusal(
          core.createNamespacedPodEviction({
            name: 'p',
            namespace: 'meetbot',
            body: { metadata: { name: 'p' } },
          }),
        )
      ).message,
    ).toBe(
      'pods "p" is forbidden: User "system:serviceaccount:meetbot:meetbot-worker" cannot create resource "pods/eviction" in API group "" in the namespace "meetbot"',
    );
    // A Role grants nothing in another namespace, nor at the cluster scope.
    expect((await refusal(core.listNamespacedPod({ namespace: 'elsewhere' }))).code).toBe(403);
    expect((await refusal(core.listPodForAllNamespaces())).message).toBe(
      'pods is forbidden: User "system:serviceaccount:meetbot:meetbot-worker" cannot list resource "pods" in API group "" at the cluster scope',
    );
    // The administrator's token is not held to the Role.
    await clientsOf(double, { admin: true }).core.deleteNamespacedPod({
      name: 'p',
      namespace: 'meetbot',
      gracePeriodSeconds: 0,
    });
  });

  it('records which permissions were used, so a test can show the Role is exactly enough', async () => {
    double = await startKubernetesDouble({ role: ROLE });
    const { core, config } = clientsOf(double);
    await core.createNamespacedSecret({ namespace: 'meetbot', body: { metadata: { name: 's' } } });
    await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('p') });
    await double.waitForPod('p', (pod) => pod?.status?.phase === 'Running');
    await core.patchNamespacedPod({
      name: 'p',
      namespace: 'meetbot',
      body: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
    });
    await core.readNamespacedPod({ name: 'p', namespace: 'meetbot' });
    await core.listNamespacedPod({ namespace: 'meetbot', labelSelector: 'app=meetbot' });
    await core.readNamespacedPodLog({ name: 'p', namespace: 'meetbot' });
    await config.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      namespace: 'meetbot',
      plural: 'pods',
      name: 'p',
    });
    const controller = await clientsOf(double).watch.watch(
      '/api/v1/namespaces/meetbot/pods',
      {},
      () => {},
      () => {},
    );
    controller.abort();
    await core.deleteNamespacedSecret({ name: 's', namespace: 'meetbot' });

    const used = double.usedPermissions();
    expect(used.every((permission) => permission.allowed)).toBe(true);
    expect(used.map(({ verb, apiGroup, resource }) => ({ verb, apiGroup, resource }))).toEqual(
      grantedPermissions(ROLE),
    );

    await refusal(core.deleteNamespacedPod({ name: 'p', namespace: 'meetbot' }));
    expect(
      double
        .usedPermissions()
        .find((permission) => permission.verb === 'delete' && permission.resource === 'pods'),
    ).toEqual({
      verb: 'delete',
      apiGroup: '',
      resource: 'pods',
      allowed: false,
    });
  });

  it('matches resourceNames, wildcards and subresource wildcards, and allows everything without a Role', async () => {
    double = await startKubernetesDouble({
      role: {
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['named'] },
          { apiGroups: ['*'], resources: ['*/log'], verbs: ['*'] },
        ],
      },
    });
    const { core } = clientsOf(double);
    const admin = clientsOf(double, { admin: true }).core;
    await admin.createNamespacedPod({ namespace: 'meetbot', body: podManifest('named') });
    await admin.createNamespacedPod({ namespace: 'meetbot', body: podManifest('other') });
    await double.waitForPod('named', (pod) => pod?.status?.phase === 'Running');
    await core.readNamespacedPod({ name: 'named', namespace: 'meetbot' });
    expect((await refusal(core.readNamespacedPod({ name: 'other', namespace: 'meetbot' }))).code).toBe(403);
    await core.readNamespacedPodLog({ name: 'named', namespace: 'meetbot' });

    double.setRole(undefined);
    await core.deleteNamespacedPod({ name: 'other', namespace: 'meetbot' });
  });
});
