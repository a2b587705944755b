import { z } from 'zod';
import { badRequest } from './api-errors.js';

/** The query parameters the double reads, checked as the API server's parameter codec checks them (400 otherwise). */
const integer = z
  .string()
  .regex(/^-?\d+$/, 'must be an integer')
  .transform(Number)
  .optional();
const flag = z
  .enum(['true', 'false', '1', '0', 't', 'f', 'True', 'False'])
  .transform((value) => ['true', '1', 't', 'True'].includes(value))
  .optional();

export const QuerySchema = z.object({
  labelSelector: z.string().optional(),
  fieldSelector: z.string().optional(),
  resourceVersion: z.string().optional(),
  allowWatchBookmarks: flag,
  sendInitialEvents: flag,
  timeoutSeconds: integer,
  gracePeriodSeconds: integer,
  propagationPolicy: z.string().optional(),
  dryRun: z.string().optional(),
  container: z.string().optional(),
  tailLines: integer,
  previous: flag,
  timestamps: flag,
  sinceSeconds: integer,
  limitBytes: integer,
  follow: flag,
});
export type Query = z.infer<typeof QuerySchema>;

export function parseQuery(params: URLSearchParams): Query {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(QuerySchema.shape)) {
    const value = params.get(key);
    if (value !== null) raw[key] = value;
  }
  const result = QuerySchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw badRequest(`${String(issue?.path[0] ?? 'query')}: Invalid value: ${issue?.message ?? 'malformed'}`);
}
