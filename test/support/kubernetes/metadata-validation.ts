import type { StatusCause } from './api-errors.js';
import { invalidValue, required, tooLong } from './field-errors.js';
import { dns1123SubdomainProblems, labelValueProblems, qualifiedNameProblems } from './names.js';
import type { ObjectMeta } from './objects.js';

/** The annotations of one object may hold at most this many bytes (keys and values). */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/**
 * ObjectMeta's validation (apimachinery ValidateObjectMeta): the name a DNS-1123 subdomain, label
 * keys qualified names and values valid label values, annotation keys qualified names within
 * 256 KiB, owner references complete.
 */
export function metadataProblems(metadata: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  if (metadata.name) {
    for (const problem of dns1123SubdomainProblems(metadata.name))
      causes.push(invalidValue('metadata.name', metadata.name, problem));
  }
  for (const [key, value] of Object.entries(metadata.labels ?? {})) {
    for (const problem of qualifiedNameProblems(key))
      causes.push(invalidValue('metadata.labels', key, problem));
    for (const problem of labelValueProblems(value))
      causes.push(invalidValue('metadata.labels', value, problem));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(metadata.annotations ?? {})) {
    for (const problem of qualifiedNameProblems(key.toLowerCase()))
      causes.push(invalidValue('metadata.annotations', key, problem));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > ANNOTATIONS_MAX_BYTES)
    causes.push(tooLong('metadata.annotations', ANNOTATIONS_MAX_BYTES));
  for (const reference of metadata.ownerReferences ?? []) {
    const field = 'metadata.ownerReferences';
    if (!reference.apiVersion)
      causes.push(invalidValue(`${field}.apiVersion`, '', 'version must not be empty'));
    if (!reference.kind) causes.push(invalidValue(`${field}.kind`, '', 'kind must not be empty'));
    if (!reference.name) causes.push(invalidValue(`${field}.name`, '', 'name must not be empty'));
    if (!reference.uid) causes.push(invalidValue(`${field}.uid`, '', 'uid must not be empty'));
  }
  for (const [index, finalizer] of (metadata.finalizers ?? []).entries()) {
    if (!finalizer) causes.push(required(`metadata.finalizers[${index}]`));
  }
  return causes;
}
