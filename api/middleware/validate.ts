import type { z } from 'zod';
import { BadRequestError } from '../../shared/infra/errors.js';

/** JSON deeper than this is refused before anything walks it (recursion, Postgres' jsonb parser). */
export const MAX_INPUT_DEPTH = 32;

/**
 * Parses input with a zod schema; on failure throws a 400 whose message names the first offending
 * field (e.g. `platform: must be one of google_meet, teams, zoom`). Before the schema, every input goes
 * through the one rule for what can't be stored: see findUnstorable.
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  rootName = 'Request body',
): z.infer<Schema> {
  const unstorable = findUnstorable(input);
  if (unstorable) throw new BadRequestError(`${fieldName(unstorable.path, rootName)}: ${unstorable.problem}`);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new BadRequestError(`${rootName} is invalid`);
  throw new BadRequestError(`${fieldName(issue.path, rootName)}: ${issue.message}`);
}

/**
 * The first string or member name Postgres can't store (a NUL character, or a lone UTF-16
 * surrogate, which has no UTF-8 form), or the first value nested deeper than MAX_INPUT_DEPTH.
 */
export function findUnstorable(
  value: unknown,
  path: PropertyKey[] = [],
): { path: PropertyKey[]; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { path, problem } : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (path.length >= MAX_INPUT_DEPTH) {
    return { path, problem: `is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)` };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorable(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem) return { path, problem: `member name ${JSON.stringify(key)} ${keyProblem}` };
    const found = findUnstorable(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL (\\u0000) characters';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it contains a lone surrogate)';
  return undefined;
}

function fieldName(path: readonly PropertyKey[], rootName: string): string {
  if (path.length === 0) return rootName;
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}
