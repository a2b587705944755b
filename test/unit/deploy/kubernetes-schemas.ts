import * as client from '@kubernetes/client-node';
import type { KubernetesObject } from './kustomize.js';

/**
 * Checks a manifest against the Kubernetes API's schemas (version 1.34) from two packages generated
 * from the API's OpenAPI document, the way the API server checks it under kubectl's default strict
 * field validation:
 *
 * - kubernetes-models: every field's type, its enum, its format (int32, quantities, int-or-string),
 *   and the required fields, through the JSON schemas it compiled (ajv);
 * - @kubernetes/client-node (the official client the worker uses): every field's name, through the
 *   attribute maps of its generated models. The schemas above accept fields they do not know; the
 *   API server refuses them (`unknown field`), and so does this.
 *
 * Custom resources (the Prometheus Operator's ServiceMonitor) are checked against their package's
 * schema only: types and required fields, not unknown names.
 */
export async function schemaProblems(object: KubernetesObject): Promise<string[]> {
  const { group, version } = groupVersionOf(object.apiVersion);
  const where = `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
  const model = await modelClass(group, version, object.kind);
  if (!model) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  const problems: string[] = [];
  try {
    new model(object).validate();
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (!errors) throw error;
    for (const item of errors)
      problems.push(`${where}: ${item.instancePath || '/'} ${item.message ?? 'is invalid'}`);
  }
  if (!CUSTOM_RESOURCE_GROUPS.has(group)) {
    const typeName = `${version.charAt(0).toUpperCase()}${version.slice(1)}${object.kind}`;
    if (!isModel(typeName)) return [...problems, `${where}: the client has no model ${typeName}`];
    unknownFields(object, typeName, '', where, problems);
  }
  return problems;
}

const CUSTOM_RESOURCE_GROUPS = new Set(['monitoring.coreos.com']);

type Validating = new (data: unknown) => { validate(): void };

async function modelClass(group: string, version: string, kind: string): Promise<Validating | undefined> {
  const specifier =
    group === 'monitoring.coreos.com'
      ? `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`
      : `kubernetes-models/${group === '' ? '' : `${group}/`}${version}/${kind}`;
  try {
    const module = (await import(specifier)) as Record<string, Validating | undefined>;
    return module[kind];
  } catch {
    return undefined;
  }
}

export function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

interface Attribute {
  baseName: string;
  type: string;
}

function attributesOf(typeName: string): Attribute[] | undefined {
  const model = (client as unknown as Record<string, { attributeTypeMap?: Attribute[] } | undefined>)[
    typeName
  ];
  return Array.isArray(model?.attributeTypeMap) ? model.attributeTypeMap : undefined;
}

function isModel(typeName: string): boolean {
  return attributesOf(typeName) !== undefined;
}

/** The leaf types of the client's models: their values' types are kubernetes-models' to check. */
const LEAF_TYPES = new Set(['string', 'number', 'boolean', 'Date', 'any', 'IntOrString']);

function unknownFields(
  value: unknown,
  typeName: string,
  path: string,
  where: string,
  problems: string[],
): void {
  if (value === null || value === undefined || LEAF_TYPES.has(typeName)) return;
  const array = /^Array<(.+)>$/.exec(typeName);
  if (array) {
    if (Array.isArray(value))
      for (const [index, item] of value.entries())
        unknownFields(item, array[1] as string, `${path}/${index}`, where, problems);
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(typeName);
  if (map) {
    if (typeof value === 'object' && !Array.isArray(value))
      for (const [key, item] of Object.entries(value))
        unknownFields(item, map[1] as string, `${path}/${key}`, where, problems);
    return;
  }
  const attributes = attributesOf(typeName);
  if (!attributes) throw new Error(`${where}: ${path}: the client's type ${typeName} is not understood here`);
  if (typeof value !== 'object' || Array.isArray(value)) return; // a wrong type: kubernetes-models says so
  for (const [key, item] of Object.entries(value)) {
    const attribute = attributes.find((candidate) => candidate.baseName === key);
    if (!attribute) problems.push(`${where}: ${path}/${key}: unknown field "${key}" (${typeName})`);
    else unknownFields(item, attribute.type, `${path}/${key}`, where, problems);
  }
}
