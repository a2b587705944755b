import type { ObjectStore, Resource } from './object-store.js';
import type { KubeObject, OwnerReference } from './objects.js';
import type { Registry } from './registry.js';

/**
 * The garbage collector's background cascading deletion
 * (https://kubernetes.io/docs/concepts/architecture/garbage-collection/#owners-dependents): a
 * dependent whose every owner is gone (no object of that kind and name, or one with another uid)
 * is deleted; one that keeps an owner only loses the references to the missing ones. The collector
 * checks a dependent when an owner of it is deleted and a little after the dependent is written (so
 * a Secret created owning a pod that no longer exists goes soon after, as in a cluster). Owners of
 * kinds the double doesn't serve are left alone, as the collector can't resolve them. Foreground
 * deletion (blockOwnerDeletion) is not modelled: owners never wait for their dependents.
 */
const OWNER_KINDS: Record<string, Resource> = { 'v1/Pod': 'pods', 'v1/Secret': 'secrets' };
const DEPENDENT_RESOURCES: Resource[] = ['secrets', 'pods'];

export class GarbageCollector {
  private readonly timers = new Set<NodeJS.Timeout>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly registries: Partial<Record<Resource, Registry>>,
    /** How long after a write a dependent is checked. */
    private readonly delayMs: number,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((event) => {
      if (event.type === 'DELETED') {
        const uid = event.object.metadata.uid;
        for (const resource of DEPENDENT_RESOURCES)
          for (const dependent of this.store.list(resource, event.object.metadata.namespace))
            if (dependent.metadata.ownerReferences?.some((owner) => owner.uid === uid))
              this.later(resource, dependent);
      } else if (
        event.object.metadata.ownerReferences?.length &&
        DEPENDENT_RESOURCES.includes(event.resource)
      ) {
        this.later(event.resource, event.object);
      }
    });
  }

  close(): void {
    this.unsubscribe?.();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(resource: Resource, dependent: KubeObject): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.collect(
        resource,
        dependent.metadata.namespace,
        dependent.metadata.name ?? '',
        dependent.metadata.uid ?? '',
      );
    }, this.delayMs);
    this.timers.add(timer);
  }

  private ownerExists(namespace: string | undefined, owner: OwnerReference): boolean | undefined {
    const resource = OWNER_KINDS[`${owner.apiVersion}/${owner.kind}`];
    if (!resource) return undefined;
    return this.store.get(resource, namespace, owner.name ?? '')?.metadata.uid === owner.uid;
  }

  private collect(resource: Resource, namespace: string | undefined, name: string, uid: string): void {
    const dependent = this.store.get(resource, namespace, name);
    const registry = this.registries[resource];
    if (!dependent || dependent.metadata.uid !== uid || dependent.metadata.deletionTimestamp || !registry)
      return;
    const owners = dependent.metadata.ownerReferences ?? [];
    const verdicts = owners.map((owner) => this.ownerExists(namespace, owner));
    if (verdicts.some((exists) => exists === undefined)) return;
    const missing = owners.filter((_, index) => verdicts[index] === false);
    if (!missing.length) return;
    try {
      if (missing.length === owners.length) {
        registry.delete(namespace, name, { preconditions: { uid } });
      } else {
        registry.mutate(namespace, name, uid, (object) => {
          object.metadata.ownerReferences = owners.filter((owner) => !missing.includes(owner));
        });
      }
    } catch {
      // Deleted or replaced meanwhile: nothing left to collect.
    }
  }
}
