import type { StatusCause } from './api-errors.js';

/**
 * Field errors as apimachinery's `field.Error` words them, each a cause of a 422 Invalid Status
 * (`spec.containers[0].image: Required value`).
 */
function shown(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

export function required(field: string, detail?: string): StatusCause {
  return {
    reason: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  };
}

export function invalidValue(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown(value)}: ${detail}`, field };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const values = supported.map((entry) => JSON.stringify(entry)).join(', ');
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${shown(value)}: supported values: ${values}`,
    field,
  };
}

export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${shown(value)}`, field };
}

export function notFoundValue(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueNotFound', message: `Not found: ${shown(value)}`, field };
}

export function forbiddenField(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

export function tooLong(field: string, maxBytes: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: must have at most ${maxBytes} bytes`, field };
}
