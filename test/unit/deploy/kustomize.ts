import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * What `kubectl apply -k <dir>` sends to the API server, for the part of kustomize that
 * deploy/kubernetes uses, and nothing more: a field or form outside that part makes it throw, so a
 * kustomization can never be rendered here differently from how kubectl renders it. The part:
 *
 * - `resources`: YAML files (every non-empty document one object) and directories holding a
 *   kustomization.yaml, rendered first (an overlay's base), in the order listed;
 * - `secretGenerator` from `envs` files, with `generatorOptions.disableNameSuffixHash: true` (so
 *   the Secret keeps its name and no reference needs rewriting) and the options' labels and
 *   annotations;
 * - `patches` that are JSON patches (RFC 6902: add, remove, replace, test) on a target named by
 *   group, version, kind, name and namespace.
 *
 * YAML is read as kubectl reads it: YAML 1.1, where an unquoted `on`, `yes` or `off` is a boolean
 * and `0755` an octal number, and a key twice in one mapping is an error.
 */

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const KUSTOMIZATION_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'secretGenerator',
  'generatorOptions',
  'patches',
]);
const SECRET_GENERATOR_FIELDS = new Set(['name', 'namespace', 'type', 'envs', 'behavior']);
const GENERATOR_OPTIONS_FIELDS = new Set(['disableNameSuffixHash', 'labels', 'annotations']);
const PATCH_FIELDS = new Set(['target', 'patch', 'path']);
const TARGET_FIELDS = new Set(['group', 'version', 'kind', 'name', 'namespace']);
/** The names kustomize looks for in a directory; only the first is supported here. */
const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** Renders the kustomization in `directory` as `kubectl kustomize` would. */
export function renderKustomization(directory: string): KubernetesObject[] {
  const present = KUSTOMIZATION_FILES.filter((name) => existsSync(join(directory, name)));
  if (present.length !== 1 || present[0] !== 'kustomization.yaml')
    throw new Error(`${directory}: expected exactly one kustomization.yaml, found [${present.join(', ')}]`);
  const file = join(directory, 'kustomization.yaml');
  const documents = parseYamlDocuments(readFileSync(file, 'utf8'), file);
  if (documents.length !== 1) throw new Error(`${file}: one document expected`);
  const kustomization = asRecord(documents[0], file);
  for (const field of Object.keys(kustomization))
    if (!KUSTOMIZATION_FIELDS.has(field)) throw new Error(`${file}: \`${field}\` is not supported here`);
  if (
    kustomization.apiVersion !== 'kustomize.config.k8s.io/v1beta1' ||
    kustomization.kind !== 'Kustomization'
  )
    throw new Error(`${file}: apiVersion kustomize.config.k8s.io/v1beta1, kind Kustomization expected`);

  const objects: KubernetesObject[] = [];
  for (const entry of asArray(kustomization.resources ?? [], `${file}: resources`)) {
    if (typeof entry !== 'string' || /^[a-z]+:\/\//.test(entry) || isAbsolute(entry))
      throw new Error(`${file}: resource ${JSON.stringify(entry)} must be a relative path`);
    const path = resolve(directory, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) objects.push(...renderKustomization(path));
    else objects.push(...readObjects(path));
  }

  const options = asRecord(kustomization.generatorOptions ?? {}, `${file}: generatorOptions`);
  for (const field of Object.keys(options))
    if (!GENERATOR_OPTIONS_FIELDS.has(field))
      throw new Error(`${file}: generatorOptions.${field} is not supported here`);
  const generators = asArray(kustomization.secretGenerator ?? [], `${file}: secretGenerator`);
  if (generators.length > 0 && options.disableNameSuffixHash !== true)
    throw new Error(
      `${file}: generated names with a hash suffix (and the references kustomize rewrites to them) are not supported here: set generatorOptions.disableNameSuffixHash: true`,
    );
  for (const generator of generators)
    objects.push(generateSecret(asRecord(generator, file), options, directory, file));

  for (const patch of asArray(kustomization.patches ?? [], `${file}: patches`))
    applyPatch(asRecord(patch, file), objects, directory, file);

  const ids = new Set<string>();
  for (const object of objects) {
    const id = objectId(object);
    if (ids.has(id)) throw new Error(`${file}: ${id} is defined twice`);
    ids.add(id);
  }
  return objects;
}

/** Every object of a YAML file of manifests. */
export function readObjects(path: string): KubernetesObject[] {
  return parseYamlDocuments(readFileSync(path, 'utf8'), path)
    .filter((document) => document !== null)
    .map((document) => {
      const object = asRecord(document, path);
      const metadata = object.metadata as Record<string, unknown> | undefined;
      if (
        typeof object.apiVersion !== 'string' ||
        typeof object.kind !== 'string' ||
        typeof metadata?.name !== 'string'
      )
        throw new Error(`${path}: every document needs apiVersion, kind and metadata.name`);
      if (object.kind === 'List' || object.kind.endsWith('List'))
        throw new Error(`${path}: lists are not supported here`);
      return object as KubernetesObject;
    });
}

/** `group/version/kind/namespace/name`, what kustomize tells resources apart by. */
export function objectId(object: KubernetesObject): string {
  return `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/** The documents of a YAML stream as kubectl reads them (YAML 1.1), every value plain JSON. */
export function parseYamlDocuments(text: string, source: string): Json[] {
  return parseAllDocuments(text, { version: '1.1', uniqueKeys: true, strict: true, prettyErrors: true }).map(
    (document) => {
      const problems = [...document.errors, ...document.warnings];
      if (problems.length > 0)
        throw new Error(`${source}: ${problems.map((error) => error.message).join('; ')}`);
      return plainJson(document.toJS({ maxAliasCount: -1 }), source, '');
    },
  );
}

function plainJson(value: unknown, source: string, path: string): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${source}${path}: ${value} is not a JSON number`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, index) => plainJson(item, source, `${path}/${index}`));
  if (value !== undefined && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        plainJson(item, source, `${path}/${key}`),
      ]),
    );
  }
  // Dates (unquoted timestamps), binary, sets, ordered maps: YAML 1.1 types with no JSON form.
  throw new Error(`${source}${path}: a value JSON has no form for (${String(value)}): quote it`);
}

/**
 * A Secret from env files, as kustomize reads them: one KEY=value a line, the value everything
 * after the first `=`; blank lines and lines starting with # skipped, leading whitespace dropped.
 * Refused here (a kustomize version could read them otherwise, or they are mistakes): a line
 * without `=` (kustomize takes its value from its own environment), a value in quotes, a value
 * ending in whitespace, a key twice.
 */
function generateSecret(
  generator: Record<string, Json>,
  options: Record<string, Json>,
  directory: string,
  file: string,
): KubernetesObject {
  for (const field of Object.keys(generator))
    if (!SECRET_GENERATOR_FIELDS.has(field))
      throw new Error(`${file}: secretGenerator.${field} is not supported here`);
  if (generator.behavior !== undefined && generator.behavior !== 'create')
    throw new Error(`${file}: secretGenerator behavior ${String(generator.behavior)} is not supported here`);
  if (typeof generator.name !== 'string') throw new Error(`${file}: a secretGenerator needs a name`);
  const data: Record<string, string> = {};
  for (const envFile of asArray(generator.envs ?? [], `${file}: envs`)) {
    if (typeof envFile !== 'string') throw new Error(`${file}: envs lists file names`);
    const path = resolve(directory, envFile);
    if (!existsSync(path)) throw new Error(`${file}: env file ${envFile} does not exist`);
    for (const [key, value] of parseEnvFile(readFileSync(path, 'utf8'), path)) {
      if (key in data) throw new Error(`${path}: ${key} is set twice`);
      data[key] = Buffer.from(value, 'utf8').toString('base64');
    }
  }
  const metadata: KubernetesObject['metadata'] = { name: generator.name };
  if (typeof generator.namespace === 'string') metadata.namespace = generator.namespace;
  if (options.labels !== undefined)
    metadata.labels = stringMap(options.labels, `${file}: generatorOptions.labels`);
  if (options.annotations !== undefined)
    metadata.annotations = stringMap(options.annotations, `${file}: generatorOptions.annotations`);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata,
    type: typeof generator.type === 'string' ? generator.type : 'Opaque',
    data,
  };
}

export function parseEnvFile(text: string, source: string): [string, string][] {
  const pairs: [string, string][] = [];
  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.replace(/\r$/, '').trimStart();
      if (line === '' || line.startsWith('#')) return;
      const where = `${source}:${index + 1}`;
      const equals = line.indexOf('=');
      if (equals < 0)
        throw new Error(`${where}: no \`=\` (kustomize would take the value from its own environment)`);
      const key = line.slice(0, equals);
      const value = line.slice(equals + 1);
      if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(key))
        throw new Error(`${where}: ${key} is not a variable name`);
      if (/^["']/.test(value))
        throw new Error(`${where}: ${key}'s value is quoted (the quotes would be kept)`);
      if (/\s$/.test(value)) throw new Error(`${where}: ${key}'s value ends in whitespace`);
      pairs.push([key, value]);
    });
  return pairs;
}

function applyPatch(
  entry: Record<string, Json>,
  objects: KubernetesObject[],
  directory: string,
  file: string,
): void {
  for (const field of Object.keys(entry))
    if (!PATCH_FIELDS.has(field)) throw new Error(`${file}: patches[].${field} is not supported here`);
  const target = asRecord(entry.target ?? null, `${file}: a patch's target`);
  for (const field of Object.keys(target))
    if (!TARGET_FIELDS.has(field))
      throw new Error(`${file}: a patch target's ${field} is not supported here`);
  for (const [field, value] of Object.entries(target))
    if (typeof value !== 'string' || !/^[A-Za-z0-9.-]*$/.test(value))
      // kustomize reads names as regular expressions: only plain names are supported here.
      throw new Error(`${file}: a patch target's ${field} must be a plain name`);
  if (target.kind === undefined || target.name === undefined)
    throw new Error(`${file}: a patch target needs a kind and a name`);
  const text =
    typeof entry.patch === 'string'
      ? entry.patch
      : typeof entry.path === 'string'
        ? readFileSync(resolve(directory, entry.path), 'utf8')
        : undefined;
  if (text === undefined || (entry.patch !== undefined && entry.path !== undefined))
    throw new Error(`${file}: a patch needs either patch or path`);
  const documents = parseYamlDocuments(text, `${file} (patch on ${target.kind} ${target.name})`);
  const operations = documents.length === 1 ? documents[0] : undefined;
  if (!Array.isArray(operations))
    throw new Error(
      `${file}: only JSON patches (a list of operations) are supported here, not strategic merge`,
    );

  const matches = objects
    .map((object, index) => ({ object, index }))
    .filter(({ object }) => {
      const [group, version] = object.apiVersion.includes('/')
        ? object.apiVersion.split('/')
        : ['', object.apiVersion];
      return (
        object.kind === target.kind &&
        object.metadata.name === target.name &&
        (target.group === undefined || target.group === group) &&
        (target.version === undefined || target.version === version) &&
        (target.namespace === undefined || target.namespace === (object.metadata.namespace ?? ''))
      );
    });
  if (matches.length === 0)
    throw new Error(`${file}: no resource matches the patch target ${JSON.stringify(target)}`);
  for (const { object, index } of matches)
    objects[index] = applyJsonPatch(
      object as unknown as Json,
      operations,
      `${file}: ${objectId(object)}`,
    ) as unknown as KubernetesObject;
}

/** RFC 6902 on a copy: add, remove, replace and test (move and copy are not supported here). */
export function applyJsonPatch(document: Json, operations: Json[], source: string): Json {
  let root = structuredClone(document);
  for (const raw of operations) {
    const operation = asRecord(raw, `${source}: a patch operation`);
    const { op, path } = operation;
    if (typeof path !== 'string') throw new Error(`${source}: an operation without a path`);
    const tokens = pointerTokens(path, source);
    const where = `${source}: ${String(op)} ${path}`;
    if (op === 'test') {
      if (!('value' in operation)) throw new Error(`${where}: no value`);
      if (!deepEqual(resolvePointer(root, tokens, where), operation.value))
        throw new Error(`${where}: the document has ${JSON.stringify(resolvePointer(root, tokens, where))}`);
      continue;
    }
    if (op !== 'add' && op !== 'remove' && op !== 'replace')
      throw new Error(`${where}: the operation is not supported here`);
    if (op !== 'remove' && !('value' in operation)) throw new Error(`${where}: no value`);
    const value = structuredClone(operation.value) as Json;
    if (tokens.length === 0) {
      if (op === 'remove') throw new Error(`${where}: cannot remove the document`);
      root = value;
      continue;
    }
    const parent = resolvePointer(root, tokens.slice(0, -1), where);
    const last = tokens[tokens.length - 1] as string;
    if (Array.isArray(parent)) {
      const index = last === '-' && op === 'add' ? parent.length : arrayIndex(last, where);
      const limit = op === 'add' ? parent.length : parent.length - 1;
      if (index > limit) throw new Error(`${where}: index ${index} out of range`);
      if (op === 'add') parent.splice(index, 0, value);
      else if (op === 'remove') parent.splice(index, 1);
      else parent[index] = value;
    } else if (parent !== null && typeof parent === 'object') {
      if (op !== 'add' && !Object.hasOwn(parent, last)) throw new Error(`${where}: no member ${last}`);
      if (op === 'remove') delete parent[last];
      else parent[last] = value;
    } else {
      throw new Error(`${where}: the parent is not an object or array`);
    }
  }
  return root;
}

function pointerTokens(path: string, source: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`${source}: ${path} is not a JSON pointer`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolvePointer(root: Json, tokens: string[], where: string): Json {
  let current: Json = root;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      const index = arrayIndex(token, where);
      if (index >= current.length) throw new Error(`${where}: index ${index} out of range`);
      current = current[index] as Json;
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, token)) {
      current = current[token] as Json;
    } else {
      throw new Error(`${where}: no member ${token}`);
    }
  }
  return current;
}

function arrayIndex(token: string, where: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new Error(`${where}: ${token} is not an array index`);
  return Number(token);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, item]) => [key, sortKeys(item)]),
    );
  return value;
}

function asRecord(value: Json | undefined, where: string): Record<string, Json> {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${where}: a mapping expected`);
  return value;
}

function asArray(value: Json, where: string): Json[] {
  if (!Array.isArray(value)) throw new Error(`${where}: a list expected`);
  return value;
}

function stringMap(value: Json, where: string): Record<string, string> {
  const record = asRecord(value, where);
  for (const item of Object.values(record))
    if (typeof item !== 'string') throw new Error(`${where}: strings expected`);
  return record as Record<string, string>;
}
