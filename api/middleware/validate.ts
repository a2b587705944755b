import type { z } from 'zod';
import { BadRequestError } from '../../shared/infra/errors.js';

/**
 * Parses input with a zod schema; on failure throws a 400 whose message names the first offending
 * field (e.g. `platform: must be one of google_meet, teams`).
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  rootName = 'Request body',
): z.infer<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new BadRequestError(`${rootName} is invalid`);
  if (issue.path.length === 0) throw new BadRequestError(`${rootName}: ${issue.message}`);
  throw new BadRequestError(`${formatPath(issue.path)}: ${issue.message}`);
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}
