import { alreadyExists, conflict, MODIFIED_SINCE, notFound } from './api-errors.js';
import { clone, type KubeObject } from './objects.js';

/**
 * What etcd and the API server's watch cache are to a cluster: every object by resource, namespace
 * and name; one resourceVersion counter over all of them (etcd's revision: each write takes the
 * next); and the recent history of changes, from which watches resume. History older than the
 * retained window is gone, and a watch from before it is answered 410 Expired
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes).
 */
export type Resource = 'pods' | 'secrets' | 'nodes' | 'namespaces' | 'poddisruptionbudgets';

export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: Resource;
  /** The object after the change (for DELETED: its last state, carrying the deletion's resourceVersion). */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  previous?: KubeObject;
  resourceVersion: number;
}

export type StoreListener = (event: StoreEvent) => void;

/** Resources served without a namespace. */
const CLUSTER_SCOPED: ReadonlySet<Resource> = new Set(['nodes', 'namespaces']);

function keyOf(resource: Resource, namespace: string | undefined, name: string): string {
  return CLUSTER_SCOPED.has(resource) ? name : `${namespace ?? ''}/${name}`;
}

export class ObjectStore {
  private version = 0;
  /** Events up to and including this version are no longer kept. */
  private compactedThrough = 0;
  private readonly objects = new Map<Resource, Map<string, KubeObject>>();
  private history: StoreEvent[] = [];
  private readonly listeners = new Set<StoreListener>();

  constructor(private readonly historyLimit: number) {}

  get currentVersion(): number {
    return this.version;
  }

  /** The oldest resourceVersion a watch may still start from. */
  get oldestWatchableVersion(): number {
    return this.compactedThrough;
  }

  private table(resource: Resource): Map<string, KubeObject> {
    let table = this.objects.get(resource);
    if (!table) {
      table = new Map();
      this.objects.set(resource, table);
    }
    return table;
  }

  get(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    const object = this.table(resource).get(keyOf(resource, namespace, name));
    return object && clone(object);
  }

  /** Objects in key order (namespace, then name), as etcd lists them. */
  list(resource: Resource, namespace?: string): KubeObject[] {
    return [...this.table(resource).entries()]
      .filter(([, object]) => namespace === undefined || object.metadata.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => clone(object));
  }

  findByUid(resource: Resource, uid: string): KubeObject | undefined {
    for (const object of this.table(resource).values()) if (object.metadata.uid === uid) return clone(object);
    return undefined;
  }

  create(resource: Resource, object: KubeObject): KubeObject {
    const name = object.metadata.name ?? '';
    const key = keyOf(resource, object.metadata.namespace, name);
    if (this.table(resource).has(key)) throw alreadyExists(resource, name);
    const stored = this.stamp(object);
    this.table(resource).set(key, stored);
    this.emit({ type: 'ADDED', resource, object: stored, resourceVersion: this.version });
    return clone(stored);
  }

  /**
   * Replaces an object. With `expectedVersion` the write happens only if the object is still at
   * that version (a Conflict otherwise), as a guarded update in etcd.
   */
  update(resource: Resource, object: KubeObject, expectedVersion?: string): KubeObject {
    const name = object.metadata.name ?? '';
    const key = keyOf(resource, object.metadata.namespace, name);
    const previous = this.table(resource).get(key);
    if (!previous) throw notFound(resource, name);
    if (expectedVersion !== undefined && expectedVersion !== previous.metadata.resourceVersion)
      throw conflict(resource, name, MODIFIED_SINCE);
    const stored = this.stamp(object);
    this.table(resource).set(key, stored);
    this.emit({ type: 'MODIFIED', resource, object: stored, previous, resourceVersion: this.version });
    return clone(stored);
  }

  remove(resource: Resource, namespace: string | undefined, name: string): KubeObject {
    const key = keyOf(resource, namespace, name);
    const previous = this.table(resource).get(key);
    if (!previous) throw notFound(resource, name);
    this.table(resource).delete(key);
    const last = this.stamp(previous);
    this.emit({ type: 'DELETED', resource, object: last, previous, resourceVersion: this.version });
    return clone(last);
  }

  /** Changes after `version`, or `undefined` when some of them are no longer kept. */
  eventsSince(version: number): StoreEvent[] | undefined {
    if (version < this.compactedThrough) return undefined;
    return this.history.filter((event) => event.resourceVersion > version);
  }

  /** Forgets all history up to now, as an etcd compaction does: only watches from now on may resume. */
  compact(): void {
    this.history = [];
    this.compactedThrough = this.version;
  }

  /** Called synchronously after each write, in write order. */
  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private stamp(object: KubeObject): KubeObject {
    this.version += 1;
    const stored = clone(object);
    stored.metadata.resourceVersion = String(this.version);
    return stored;
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedThrough = dropped.at(-1)?.resourceVersion ?? this.compactedThrough;
    }
    for (const listener of [...this.listeners]) {
      listener({
        ...event,
        object: clone(event.object),
        ...(event.previous && { previous: clone(event.previous) }),
      });
    }
  }
}
