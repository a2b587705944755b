import { badRequest } from './api-errors.js';

/**
 * Field selectors as the API reads the `fieldSelector` parameter
 * (https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors/): terms
 * `field=value`, `field==value` or `field!=value` joined by `,`, over the fields each resource
 * supports (others are refused: "field label not supported"). `\,`, `\=` and `\\` escape.
 */
export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at]!;
    if (char === '\\' && at + 1 < text.length) {
      current += char + text[at + 1];
      at += 1;
    } else if (char === separator) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

const unescaped = (text: string) => text.replace(/\\(.)/g, '$1');

export function parseFieldSelector(
  text: string | undefined,
  supported: readonly string[],
): FieldRequirement[] {
  if (!text?.trim()) return [];
  return splitUnescaped(text, ',').map((term) => {
    const match = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = match[1]!.trim();
    if (!supported.includes(field)) throw badRequest(`field label not supported: ${field}`);
    return { field, operator: match[2] === '!=' ? '!=' : '=', value: unescaped(match[3]!.trim()) };
  });
}

export function matchesFields(selector: FieldRequirement[], fields: Record<string, string>): boolean {
  return selector.every(
    ({ field, operator, value }) => ((fields[field] ?? '') === value) === (operator === '='),
  );
}

/**
 * The `metadata.name=x` of a selector, which is what RBAC sees as the name of a list or watch
 * (read leniently, as the request-info resolver does: a selector it can't read names nothing).
 */
export function nameInFieldSelector(text: string | undefined): string | undefined {
  for (const term of splitUnescaped(text ?? '', ',')) {
    const match = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/s.exec(term);
    if (match) return unescaped(match[1]!);
  }
  return undefined;
}
