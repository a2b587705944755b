import { z } from 'zod';
import type { OpenApiObject } from '../routes/route.js';

export const errorSchema = z
  .object({ error: z.string() })
  .strict()
  .meta({ id: 'Error', description: 'Every error response: one member, `error`.' });

export function schemaId(schema: z.ZodType): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('schema has no id');
  return id;
}

/** A reference to a schema of `components.schemas` (it must have an id). */
export const ref = (schema: z.ZodType) => ({ $ref: `#/components/schemas/${schemaId(schema)}` });
/** `content` of a JSON answer or request body. */
export const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema: ref(schema) } } });
/** An error answer: `{ "error": "…" }`. */
export const error = (description: string): OpenApiObject => ({ description, ...json(errorSchema) });

/** The answers every X-API-Key route can give besides its own. */
export const commonErrors = {
  401: error('Missing or invalid X-API-Key: `Unauthorized`'),
  429: error(
    'Over the per-key request rate (`Rate limit exceeded: …`) or, from this address, over the failed-authentication limit (`Too many failed authentication attempts …`); `Retry-After` says when to try again',
  ),
  503: error(
    'Postgres is unreachable for now (a restart, a failover): `Database unavailable; try again shortly`, with `Retry-After`',
  ),
};
