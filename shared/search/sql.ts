import type { Knex } from '../infra/knex.js';

/**
 * SQL text and its values, in the order of their `?`s. The search's statement is put together from
 * conditions that depend on the query; built from these pieces, its values can't drift from its text
 * as a hand-counted list of bindings would.
 */
export interface Sql {
  text: string;
  values: Knex.RawBinding[];
}

function isSql(part: unknown): part is Sql {
  return typeof part === 'object' && part !== null && 'text' in part && 'values' in part;
}

/** `sql\`a = ${value} AND ${fragment}\``: values become `?`, fragments are spliced in, in order. */
export function sql(strings: TemplateStringsArray, ...parts: Array<Sql | Knex.RawBinding>): Sql {
  let text = strings[0]!;
  const values: Knex.RawBinding[] = [];
  parts.forEach((part, index) => {
    if (isSql(part)) {
      text += part.text;
      values.push(...part.values);
    } else {
      text += '?';
      values.push(part);
    }
    text += strings[index + 1]!;
  });
  return { text, values };
}

export function join(fragments: readonly Sql[], separator: string): Sql {
  return {
    text: fragments.map((fragment) => fragment.text).join(separator),
    values: fragments.flatMap((fragment) => fragment.values),
  };
}

/** Text of our own (column names, constants), spliced in as it is: never a caller's value. */
export const raw = (text: string): Sql => ({ text, values: [] });
