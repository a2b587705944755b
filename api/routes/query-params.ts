import { z } from 'zod';

/** A whole number in a query string, bounded so it always fits what it is compared to. */
export function wholeNumberParam(min: number, max: number) {
  return z
    .string({ error: 'must be a whole number' })
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

/** How long a listing's pages are (LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT). */
export interface PageSizes {
  defaultLimit: number;
  maxLimit: number;
}

/** `?limit=&offset=` of every listing: a default page size, a maximum, and an offset that fits. */
export function pageQueryShape(sizes: PageSizes) {
  return {
    limit: wholeNumberParam(1, sizes.maxLimit).default(sizes.defaultLimit),
    offset: wholeNumberParam(0, Number.MAX_SAFE_INTEGER).default(0),
  };
}

/** A page size parameter (pageQueryShape's `limit`) as the OpenAPI document shows it. */
export function limitParameter(name: string, sizes: PageSizes) {
  return {
    name,
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: sizes.maxLimit, default: sizes.defaultLimit },
  };
}

/** An offset parameter (pageQueryShape's `offset`) as the OpenAPI document shows it. */
export function offsetParameter(name: string) {
  return { name, in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } };
}
