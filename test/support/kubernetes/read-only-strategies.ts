import { z } from 'zod';
import type { Resource } from './object-store.js';
import type { KubeObject } from './objects.js';
import { decode, ObjectMetaSchema } from './objects.js';
import type { Strategy } from './registry.js';

/**
 * Resources the double serves for reading only (nodes, namespaces, PodDisruptionBudgets): the
 * tests' hooks write them; clients get, list and watch them.
 */
function readOnly(kind: string, resource: Resource, apiVersion: string, namespaced: boolean): Strategy {
  return {
    kind,
    resource,
    apiVersion,
    namespaced,
    returnDeletedObject: false,
    selectableFields: namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name'],
    decode: (body) =>
      decode(z.looseObject({ metadata: ObjectMetaSchema.default({}) }), kind, body) as KubeObject,
    prepareForCreate: () => {},
    validate: () => [],
    prepareForUpdate: () => {},
    validateUpdate: () => [],
    fields: (object) => ({
      'metadata.name': object.metadata.name ?? '',
      ...(namespaced && { 'metadata.namespace': object.metadata.namespace ?? '' }),
    }),
  };
}

export const nodeStrategy = readOnly('Node', 'nodes', 'v1', false);
export const namespaceStrategy = readOnly('Namespace', 'namespaces', 'v1', false);
export const disruptionBudgetStrategy = readOnly(
  'PodDisruptionBudget',
  'poddisruptionbudgets',
  'policy/v1',
  true,
);
