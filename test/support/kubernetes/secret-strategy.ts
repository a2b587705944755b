import { isDeepStrictEqual } from 'node:util';
import { badRequest, type StatusCause } from './api-errors.js';
import { forbiddenField, invalidValue, tooLong } from './field-errors.js';
import { configKeyProblems } from './names.js';
import { decode, type KubeObject, type Secret, SecretSchema } from './objects.js';
import type { Strategy } from './registry.js';

/** A Secret's data may hold at most 1 MiB. */
const SECRET_MAX_BYTES = 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const asSecret = (object: KubeObject) => object as unknown as Secret;

/**
 * A secret as written: `data` values must be base64 (the decoder refuses others with 400), and
 * `stringData` is a write-only convenience merged into `data` (its keys win) and never stored
 * (https://kubernetes.io/docs/reference/kubernetes-api/config-and-storage-resources/secret-v1/).
 */
function decodeSecret(body: unknown): KubeObject {
  const secret = decode(SecretSchema, 'Secret', body);
  for (const [key, value] of Object.entries(secret.data ?? {})) {
    if (!BASE64.test(value))
      throw badRequest(
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data in data[${key}]`,
      );
  }
  if (secret.stringData) {
    secret.data ??= {};
    for (const [key, value] of Object.entries(secret.stringData))
      secret.data[key] = Buffer.from(value, 'utf8').toString('base64');
    delete secret.stringData;
  }
  return secret as KubeObject;
}

/** Secrets' REST rules (pkg/registry/core/secret/strategy.go). */
export const secretStrategy: Strategy = {
  kind: 'Secret',
  resource: 'secrets',
  apiVersion: 'v1',
  namespaced: true,
  returnDeletedObject: false,
  selectableFields: ['metadata.name', 'metadata.namespace', 'type'],

  decode: decodeSecret,

  prepareForCreate(object) {
    asSecret(object).type ??= 'Opaque';
  },

  validate(object) {
    const secret = asSecret(object);
    const causes: StatusCause[] = [];
    let bytes = 0;
    for (const [key, value] of Object.entries(secret.data ?? {})) {
      for (const problem of configKeyProblems(key)) causes.push(invalidValue(`data[${key}]`, key, problem));
      bytes += Buffer.from(value, 'base64').length;
    }
    if (bytes > SECRET_MAX_BYTES) causes.push(tooLong('data', SECRET_MAX_BYTES));
    return causes;
  },

  prepareForUpdate(next, old) {
    asSecret(next).type ??= asSecret(old).type;
  },

  validateUpdate(next, old) {
    const causes: StatusCause[] = [];
    const before = asSecret(old);
    const after = asSecret(next);
    if (after.type !== before.type) causes.push(invalidValue('type', after.type, 'field is immutable'));
    if (before.immutable) {
      if (!isDeepStrictEqual(after.data ?? {}, before.data ?? {}))
        causes.push(forbiddenField('data', 'field is immutable when `immutable` is set'));
      if (after.immutable !== true)
        causes.push(forbiddenField('immutable', 'field is immutable when `immutable` is set'));
    }
    return causes;
  },

  fields(object) {
    const secret = asSecret(object);
    return {
      'metadata.name': secret.metadata.name ?? '',
      'metadata.namespace': secret.metadata.namespace ?? '',
      type: secret.type ?? '',
    };
  },
};
