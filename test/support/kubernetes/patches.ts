import { ApiError, badRequest, unsupportedMediaType } from './api-errors.js';
import { clone } from './objects.js';

/**
 * The three PATCH formats the API server takes
 * (https://kubernetes.io/docs/tasks/manage-kubernetes-objects/update-api-object-kubectl-patch/):
 * a JSON Patch (RFC 6902, what @kubernetes/client-node 1.x sends by default: its patch methods offer
 * `application/json-patch+json` first), a JSON merge patch (RFC 7386) and a strategic merge patch
 * (a merge patch whose lists of keyed items merge by their key). Server-side apply is not served.
 */
type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (value: Json): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A patch that cannot apply: 422, as the API server's patcher answers it. */
function unappliable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

export function applyPatch(contentType: string, target: Json, patch: Json): Json {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatch(target, patch);
    case 'application/merge-patch+json':
      if (!isObject(patch)) throw badRequest('a merge patch must be a JSON object');
      return mergePatch(target, patch);
    case 'application/strategic-merge-patch+json':
      if (!isObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
      return strategicMerge(target, patch, []);
    default:
      throw unsupportedMediaType(contentType);
  }
}

// RFC 7386
function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/**
 * The merge keys of the lists a strategic merge patch merges item by item (the `patchMergeKey`
 * tags of the Pod and ObjectMeta types); `''` marks a list of primitives merged as a set.
 */
const MERGE_KEYS: Record<string, string> = {
  'metadata.ownerReferences': 'uid',
  'metadata.finalizers': '',
  'spec.containers': 'name',
  'spec.initContainers': 'name',
  'spec.volumes': 'name',
  'spec.imagePullSecrets': 'name',
  'spec.containers.env': 'name',
  'spec.initContainers.env': 'name',
  'spec.containers.volumeMounts': 'mountPath',
  'spec.initContainers.volumeMounts': 'mountPath',
  'spec.containers.ports': 'containerPort',
  'status.conditions': 'type',
};

function strategicMerge(target: Json, patch: JsonObject, path: string[]): Json {
  if (patch.$patch === 'replace') {
    const { $patch: _, ...rest } = patch;
    return clone(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$setElementOrder/') || key === '$retainKeys' || key === '$patch') continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const drop = Array.isArray(value) ? value : [];
      if (Array.isArray(out[field]))
        out[field] = (out[field] as Json[]).filter((item) => !drop.includes(item));
      continue;
    }
    const fieldPath = [...path, key];
    if (value === null) {
      delete out[key];
    } else if (Array.isArray(value)) {
      const mergeKey = MERGE_KEYS[fieldPath.join('.')];
      out[key] = mergeKey === undefined ? clone(value) : mergeList(out[key], value, mergeKey, fieldPath);
    } else if (isObject(value)) {
      const merged = strategicMerge(out[key], value, fieldPath);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else {
      out[key] = value;
    }
  }
  return out;
}

function mergeList(target: Json, patch: Json[], mergeKey: string, path: string[]): Json[] {
  const current = Array.isArray(target) ? [...target] : [];
  if (mergeKey === '') {
    for (const item of patch) if (!current.includes(item)) current.push(item);
    return current;
  }
  for (const item of patch) {
    if (!isObject(item)) throw badRequest(`${path.join('.')}: items of a merged list must be objects`);
    const at = current.findIndex((existing) => isObject(existing) && existing[mergeKey] === item[mergeKey]);
    if (item.$patch === 'delete') {
      if (at >= 0) current.splice(at, 1);
    } else if (at >= 0) {
      current[at] = strategicMerge(current[at], item, path);
    } else {
      current.push(strategicMerge({}, item, path));
    }
  }
  return current;
}

// RFC 6901 pointers and RFC 6902 operations
function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/')))
    throw badRequest(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(document: Json, parts: string[], path: string): { parent: Json; last: string } {
  let parent = document;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(parent)) parent = parent[Number(part)];
    else if (isObject(parent)) parent = parent[part];
    else parent = undefined;
    if (parent === undefined) throw unappliable(`doc is missing path: "${path}": missing value`);
  }
  return { parent, last: parts.at(-1)! };
}

function getAt(document: Json, path: string): Json {
  let value = document;
  for (const part of pointer(path)) {
    if (Array.isArray(value)) value = value[Number(part)];
    else if (isObject(value)) value = Object.hasOwn(value, part) ? value[part] : undefined;
    else value = undefined;
    if (value === undefined) throw unappliable(`doc is missing path: "${path}": missing value`);
  }
  return value;
}

function arrayIndex(array: Json[], part: string, path: string, forInsert: boolean): number {
  if (forInsert && part === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(part)) throw unappliable(`invalid array index in "${path}"`);
  const index = Number(part);
  if (index > array.length || (!forInsert && index === array.length))
    throw unappliable(`array index out of bounds in "${path}"`);
  return index;
}

function addAt(document: Json, path: string, value: Json): Json {
  const parts = pointer(path);
  if (!parts.length) return clone(value);
  const { parent, last } = parentOf(document, parts, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, true), 0, clone(value));
  else if (isObject(parent)) parent[last] = clone(value);
  else throw unappliable(`doc is missing path: "${path}": missing value`);
  return document;
}

function removeAt(document: Json, path: string): Json {
  const parts = pointer(path);
  const { parent, last } = parentOf(document, parts, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, false), 1);
  else if (isObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
  else throw unappliable(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  return document;
}

function applyJsonPatch(target: Json, patch: Json): Json {
  if (!Array.isArray(patch)) throw badRequest('a JSON patch must be an array of operations');
  let document = clone(target);
  for (const operation of patch) {
    if (!isObject(operation)) throw badRequest('a JSON patch operation must be an object');
    const path = operation.path as string;
    switch (operation.op) {
      case 'add':
        document = addAt(document, path, operation.value);
        break;
      case 'remove':
        document = removeAt(document, path);
        break;
      case 'replace':
        getAt(document, path);
        document = pointer(path).length
          ? addAt(removeAt(document, path), path, operation.value)
          : clone(operation.value);
        break;
      case 'move': {
        const value = getAt(document, operation.from as string);
        document = addAt(removeAt(document, operation.from as string), path, value);
        break;
      }
      case 'copy':
        document = addAt(document, path, getAt(document, operation.from as string));
        break;
      case 'test':
        if (JSON.stringify(getAt(document, path)) !== JSON.stringify(operation.value))
          throw unappliable(`testing value ${path} failed: test failed`);
        break;
      default:
        throw badRequest(`Unexpected kind: ${String(operation.op)}`);
    }
  }
  return document;
}
