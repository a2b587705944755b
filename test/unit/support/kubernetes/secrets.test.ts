import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type KubernetesDouble,
  startKubernetesDouble,
} from '../../../support/kubernetes/kubernetes-double.js';
import { clientsOf, eventually, podManifest, refusal } from './clients.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('the Kubernetes API double: secrets and their garbage collection', () => {
  let double: KubernetesDouble;

  beforeEach(async () => {
    double = await startKubernetesDouble({ gcDelayMs: 50 });
  });
  afterEach(() => double.close());

  it('keeps data in base64, merges stringData into it on write, and answers a delete with a Success Status', async () => {
    const { core } = clientsOf(double);
    const created = await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: {
        metadata: { name: 's', labels: { app: 'meetbot' } },
        data: { a: b64('from data'), b: b64('overridden') },
        stringData: { b: 'from stringData', c: 'plain' },
      },
    });
    expect(created.type).toBe('Opaque');
    expect(created.data).toEqual({ a: b64('from data'), b: b64('from stringData'), c: b64('plain') });
    expect(created.stringData).toBeUndefined();

    const patched = await core.patchNamespacedSecret(
      { name: 's', namespace: 'meetbot', body: { stringData: { d: 'added' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(Buffer.from(patched.data?.d ?? '', 'base64').toString()).toBe('added');

    await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: { metadata: { name: 't', labels: { app: 'other' } } },
    });
    const listed = await core.listNamespacedSecret({ namespace: 'meetbot', labelSelector: 'app=meetbot' });
    expect(listed.items.map((secret) => secret.metadata?.name)).toEqual(['s']);

    expect(
      await refusal(
        core.createNamespacedSecret({
          namespace: 'meetbot',
          body: { metadata: { name: 'bad' }, data: { x: 'not base64!' } },
        }),
      ),
    ).toMatchObject({
      code: 400,
      reason: 'BadRequest',
    });
    expect(
      await refusal(
        core.createNamespacedSecret({
          namespace: 'meetbot',
          body: { metadata: { name: 'bad' }, stringData: { 'no/slash': 'x' } },
        }),
      ),
    ).toMatchObject({
      code: 422,
      details: { causes: [{ field: 'data[no/slash]' }] },
    });

    const deleted = await core.deleteNamespacedSecret({ name: 's', namespace: 'meetbot' });
    expect(deleted).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 's', kind: 'secrets' },
    });
    expect(await refusal(core.readNamespacedSecret({ name: 's', namespace: 'meetbot' }))).toMatchObject({
      code: 404,
      message: 'secrets "s" not found',
    });
  });

  it('deletes a secret owned by a pod when the pod goes (ownerReferences by uid)', async () => {
    const { core } = clientsOf(double);
    await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: { metadata: { name: 'bot-1' }, stringData: { k: 'v' } },
    });
    const pod = await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('bot-1') });
    // As the runtime does it: a JSON patch adding the owner reference once the pod exists.
    await core.patchNamespacedSecret({
      name: 'bot-1',
      namespace: 'meetbot',
      body: [
        {
          op: 'add',
          path: '/metadata/ownerReferences',
          value: [{ apiVersion: 'v1', kind: 'Pod', name: 'bot-1', uid: pod.metadata?.uid }],
        },
      ],
    });
    await core.createNamespacedSecret({ namespace: 'meetbot', body: { metadata: { name: 'unowned' } } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(double.secret('bot-1')).toBeDefined();

    await core.deleteNamespacedPod({ name: 'bot-1', namespace: 'meetbot', gracePeriodSeconds: 0 });
    await eventually(() => double.secret('bot-1') === undefined);
    expect(double.secret('unowned')).toBeDefined();
  });

  it('collects soon after a secret created owning a pod uid that no longer exists, and only drops a dangling owner of one kept by another', async () => {
    const { core } = clientsOf(double);
    const alive = await core.createNamespacedPod({ namespace: 'meetbot', body: podManifest('alive') });
    await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: {
        metadata: {
          name: 'orphan',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Pod', name: 'alive', uid: '00000000-0000-0000-0000-000000000000' },
          ],
        },
      },
    });
    await core.createNamespacedSecret({
      namespace: 'meetbot',
      body: {
        metadata: {
          name: 'shared',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Pod', name: 'gone', uid: '11111111-1111-1111-1111-111111111111' },
            { apiVersion: 'v1', kind: 'Pod', name: 'alive', uid: alive.metadata?.uid ?? '' },
          ],
        },
      },
    });
    await eventually(() => double.secret('orphan') === undefined);
    const shared = await eventually(() => {
      const secret = double.secret('shared');
      return secret?.metadata.ownerReferences?.length === 1 && secret;
    });
    expect(shared.metadata.ownerReferences?.[0]?.name).toBe('alive');
  });
});
