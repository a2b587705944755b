import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  MODIFIED_SINCE,
  notFound,
  type Status,
  type StatusCause,
  successStatus,
} from './api-errors.js';
import { required } from './field-errors.js';
import { type FieldRequirement, matchesFields } from './field-selector.js';
import { type LabelSelector, matchesLabels } from './label-selector.js';
import { metadataProblems } from './metadata-validation.js';
import type { ObjectStore, Resource } from './object-store.js';
import { clone, type DeleteOptions, type KubeObject, timestamp } from './objects.js';
import { applyPatch } from './patches.js';

/**
 * What one resource does beyond the generic rules (the API server's per-resource "strategy"):
 * defaulting, validation, which fields an update may change, its field selectors, and whether a
 * delete waits for a grace period.
 */
export interface Strategy {
  readonly kind: string;
  readonly resource: Resource;
  readonly apiVersion: string;
  readonly namespaced: boolean;
  readonly selectableFields: readonly string[];
  /** Pods answer a delete with the pod; most resources with a Success Status. */
  readonly returnDeletedObject: boolean;
  decode(body: unknown): KubeObject;
  prepareForCreate(object: KubeObject): void;
  validate(object: KubeObject): StatusCause[];
  /** Restores what an update may not change through this endpoint (a pod's status). */
  prepareForUpdate(next: KubeObject, old: KubeObject): void;
  validateUpdate(next: KubeObject, old: KubeObject): StatusCause[];
  fields(object: KubeObject): Record<string, string>;
  /** For graceful resources: the seconds a deletion waits for; 0 deletes at once. */
  gracePeriod?(object: KubeObject, requested: number | undefined): number;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}

export interface Selection {
  labels: LabelSelector;
  fields: FieldRequirement[];
}

export type DeleteAnswer = { object: KubeObject } | { status: Status };

const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function generatedSuffix(): string {
  let suffix = '';
  for (let index = 0; index < 5; index += 1)
    suffix += GENERATED_NAME_ALPHABET[Math.floor(Math.random() * GENERATED_NAME_ALPHABET.length)];
  return suffix;
}

/** Objects as served one by one: with their kind and apiVersion. */
function served(object: KubeObject, strategy: Strategy): KubeObject {
  return { apiVersion: strategy.apiVersion, kind: strategy.kind, ...object };
}

/** Objects as items of a list: the list carries the kind. */
function asItem(object: KubeObject): KubeObject {
  const { apiVersion: _version, kind: _kind, ...rest } = object;
  return rest as KubeObject;
}

function withoutVersion(object: KubeObject): KubeObject {
  const copy = clone(object);
  delete copy.metadata.resourceVersion;
  return copy;
}

/**
 * The generic REST rules every resource follows (k8s.io/apiserver genericregistry.Store): server
 * fields set on create, AlreadyExists and NotFound, optimistic concurrency on resourceVersion,
 * no-op updates that change nothing, graceful deletion with deletionTimestamp and finalizers.
 */
export class Registry {
  constructor(
    private readonly store: ObjectStore,
    readonly strategy: Strategy,
    private readonly namespaceExists: (namespace: string) => boolean,
  ) {}

  private get resource(): Resource {
    return this.strategy.resource;
  }

  get(namespace: string | undefined, name: string): KubeObject {
    const object = this.store.get(this.resource, namespace, name);
    if (!object) throw notFound(this.resource, name);
    return served(object, this.strategy);
  }

  find(namespace: string | undefined, name: string): KubeObject | undefined {
    const object = this.store.get(this.resource, namespace, name);
    return object && served(object, this.strategy);
  }

  list(namespace: string | undefined, selection: Selection): ListResult {
    return {
      items: this.store
        .list(this.resource, namespace)
        .filter((object) => this.matches(object, selection))
        .map(asItem),
      resourceVersion: String(this.store.currentVersion),
    };
  }

  matches(object: KubeObject, selection: Selection): boolean {
    return (
      matchesLabels(selection.labels, object.metadata.labels) &&
      matchesFields(selection.fields, this.strategy.fields(object))
    );
  }

  create(namespace: string | undefined, body: unknown, dryRun = false): KubeObject {
    const object = this.strategy.decode(body);
    this.checkKind(object);
    if (this.strategy.namespaced) {
      if (object.metadata.namespace && object.metadata.namespace !== namespace)
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      object.metadata.namespace = namespace;
      if (!this.namespaceExists(namespace ?? '')) throw notFound('namespaces', namespace ?? '');
    }
    if (!object.metadata.name && object.metadata.generateName)
      object.metadata.name = `${object.metadata.generateName}${generatedSuffix()}`;
    object.metadata.uid = randomUUID();
    object.metadata.creationTimestamp = timestamp();
    object.metadata.generation = 1;
    delete object.metadata.resourceVersion;
    delete object.metadata.deletionTimestamp;
    delete object.metadata.deletionGracePeriodSeconds;
    this.strategy.prepareForCreate(object);
    this.validate(object, [...metadataProblems(object.metadata), ...this.strategy.validate(object)]);
    const stored = served(object, this.strategy);
    if (dryRun) {
      if (this.store.get(this.resource, namespace, object.metadata.name ?? ''))
        throw alreadyExists(this.resource, object.metadata.name ?? '');
      return stored;
    }
    return served(this.store.create(this.resource, stored), this.strategy);
  }

  /** PUT: the whole object, guarded by its resourceVersion when it carries one. */
  replace(namespace: string | undefined, name: string, body: unknown, dryRun = false): KubeObject {
    const old = this.get(namespace, name);
    return this.update(old, this.strategy.decode(body), dryRun);
  }

  patch(
    namespace: string | undefined,
    name: string,
    contentType: string,
    patch: unknown,
    dryRun = false,
  ): KubeObject {
    const old = this.get(namespace, name);
    const patched = applyPatch(contentType, old, patch);
    return this.update(old, this.strategy.decode(patched), dryRun);
  }

  private update(old: KubeObject, next: KubeObject, dryRun: boolean): KubeObject {
    const name = old.metadata.name ?? '';
    this.checkKind(next);
    if (next.metadata.name !== undefined && next.metadata.name !== name)
      throw badRequest(
        `the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`,
      );
    if (
      this.strategy.namespaced &&
      next.metadata.namespace &&
      next.metadata.namespace !== old.metadata.namespace
    )
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    const expectedVersion = next.metadata.resourceVersion || undefined;
    if (expectedVersion !== undefined && expectedVersion !== old.metadata.resourceVersion)
      throw conflict(this.resource, name, MODIFIED_SINCE);
    // System fields are the server's (rest.BeforeUpdate / FillObjectMetaSystemFields).
    for (const field of [
      'name',
      'namespace',
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
    ] as const) {
      if (old.metadata[field] === undefined) delete next.metadata[field];
      else (next.metadata as Record<string, unknown>)[field] = old.metadata[field];
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    this.strategy.prepareForUpdate(next, old);
    this.validate(next, [
      ...metadataProblems(next.metadata),
      ...this.strategy.validate(next),
      ...this.strategy.validateUpdate(next, old),
    ]);
    const stored = served(next, this.strategy);
    // An update that changes nothing writes nothing: no new resourceVersion, no watch event.
    if (isDeepStrictEqual(withoutVersion(stored), withoutVersion(old)) || dryRun) return stored;
    // The last finalizer removed from an object whose deletion has no grace left: it goes now.
    if (
      old.metadata.deletionTimestamp &&
      !next.metadata.finalizers?.length &&
      old.metadata.deletionGracePeriodSeconds === 0
    ) {
      this.store.update(this.resource, stored, old.metadata.resourceVersion);
      return served(this.store.remove(this.resource, old.metadata.namespace, name), this.strategy);
    }
    return served(this.store.update(this.resource, stored, old.metadata.resourceVersion), this.strategy);
  }

  /**
   * DELETE (rest.BeforeDelete and genericregistry.Store.Delete): a graceful resource (pods) gets a
   * deletionTimestamp and deletionGracePeriodSeconds and waits for the kubelet, unless its grace is
   * 0; others go at once. Finalizers hold either until they are removed. A second delete may only
   * shorten a grace period (the timestamp moves with it); one that doesn't is answered with the
   * object as it is.
   */
  delete(
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
    dryRun = false,
  ): DeleteAnswer {
    const old = this.get(namespace, name);
    this.checkPreconditions(old, options);
    const requested =
      options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0
        ? 1
        : options.gracePeriodSeconds;
    const finalizers = old.metadata.finalizers?.length ?? 0;
    const next = clone(old);
    if (old.metadata.deletionTimestamp) {
      const current = old.metadata.deletionGracePeriodSeconds ?? 0;
      if (current > 0) {
        if (requested === undefined || requested >= current) return { object: old };
        const started = Date.parse(old.metadata.deletionTimestamp) - current * 1000;
        next.metadata.deletionTimestamp = timestamp(new Date(started + requested * 1000));
        next.metadata.deletionGracePeriodSeconds = requested;
      } else if (finalizers) {
        return { object: old };
      }
    } else if (this.strategy.gracePeriod) {
      const period = this.strategy.gracePeriod(old, requested);
      next.metadata.deletionTimestamp = timestamp(new Date(Date.now() + period * 1000));
      next.metadata.deletionGracePeriodSeconds = period;
    } else if (finalizers) {
      next.metadata.deletionTimestamp = timestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
    }
    if (dryRun) return this.answer(next);
    let last = old;
    if (!isDeepStrictEqual(next, old)) last = this.store.update(this.resource, next);
    if (finalizers || (last.metadata.deletionGracePeriodSeconds ?? 0) > 0)
      return { object: served(last, this.strategy) };
    return this.answer(served(this.store.remove(this.resource, namespace, name), this.strategy));
  }

  private answer(object: KubeObject): DeleteAnswer {
    if (this.strategy.returnDeletedObject) return { object };
    return {
      status: successStatus(200, {
        name: object.metadata.name ?? '',
        kind: this.resource,
        uid: object.metadata.uid ?? '',
      }),
    };
  }

  /**
   * A change made by a controller of the double (the scheduler's binding, the kubelet's status):
   * applied to the object only while it is still the one with this uid, without the endpoint's
   * rules. Answers the object written, or undefined when it is gone.
   */
  mutate(
    namespace: string | undefined,
    name: string,
    uid: string,
    change: (object: KubeObject) => void,
  ): KubeObject | undefined {
    const current = this.store.get(this.resource, namespace, name);
    if (!current || current.metadata.uid !== uid) return undefined;
    const next = clone(current);
    change(next);
    if (isDeepStrictEqual(next, current)) return served(current, this.strategy);
    return served(this.store.update(this.resource, next), this.strategy);
  }

  private checkPreconditions(old: KubeObject, options: DeleteOptions): void {
    const { uid, resourceVersion } = options.preconditions ?? {};
    const name = old.metadata.name ?? '';
    if (uid && uid !== old.metadata.uid)
      throw conflict(
        this.resource,
        name,
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid}`,
      );
    if (resourceVersion && resourceVersion !== old.metadata.resourceVersion)
      throw conflict(
        this.resource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
      );
  }

  private checkKind(object: KubeObject): void {
    if (object.kind !== undefined && object.kind !== this.strategy.kind)
      throw badRequest(
        `${this.strategy.kind} in version "v1" cannot be handled as a ${this.strategy.kind}: the kind in the data (${object.kind}) does not match the expected kind`,
      );
    if (object.apiVersion !== undefined && object.apiVersion !== this.strategy.apiVersion)
      throw badRequest(
        `the API version in the data (${object.apiVersion}) does not match the expected API version (${this.strategy.apiVersion})`,
      );
  }

  private validate(object: KubeObject, causes: StatusCause[]): void {
    if (!object.metadata.name) causes.unshift(required('metadata.name', 'name or generateName is required'));
    if (causes.length) throw invalid(this.strategy.kind, object.metadata.name ?? '', causes);
  }
}
