import { badRequest } from './api-errors.js';
import { labelValueProblems, qualifiedNameProblems } from './names.js';
import type { LabelSelectorObject } from './objects.js';

/**
 * Label selectors as the API reads the `labelSelector` parameter (k8s.io/apimachinery/pkg/labels,
 * https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors):
 * requirements joined by `,` (AND): `key=value`, `key==value`, `key!=value`, `key in (a,b)`,
 * `key notin (a,b)`, `key` (exists), `!key` (does not exist), and `key>1` / `key<1`. `!=` and
 * `notin` match objects without the key too. An empty selector matches everything.
 */
export type Operator = 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type LabelSelector = Requirement[];

type Token =
  | { kind: 'identifier'; text: string }
  | { kind: 'symbol'; text: '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '<' | '>' }
  | { kind: 'end'; text: '' };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (/\s/.test(char)) {
      at += 1;
    } else if (char === '=' && text[at + 1] === '=') {
      out.push({ kind: 'symbol', text: '==' });
      at += 2;
    } else if (char === '!' && text[at + 1] === '=') {
      out.push({ kind: 'symbol', text: '!=' });
      at += 2;
    } else if (SPECIAL.has(char)) {
      out.push({ kind: 'symbol', text: char as '!' });
      at += 1;
    } else {
      let end = at;
      while (end < text.length && !SPECIAL.has(text[end]!) && !/\s/.test(text[end]!)) end += 1;
      out.push({ kind: 'identifier', text: text.slice(at, end) });
      at = end;
    }
  }
  out.push({ kind: 'end', text: '' });
  return out;
}

function unparsable(message: string): never {
  throw badRequest(`unable to parse requirement: ${message}`);
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'EOS' : `'${token.text}'`;
}

function checkKey(key: string): void {
  const problems = qualifiedNameProblems(key);
  if (problems.length) unparsable(`key: Invalid value: ${JSON.stringify(key)}: ${problems.join('; ')}`);
}

function checkValue(key: string, index: number, value: string): void {
  const problems = labelValueProblems(value);
  if (problems.length)
    unparsable(`values[${index}][${key}]: Invalid value: ${JSON.stringify(value)}: ${problems.join('; ')}`);
}

/** Parses a `labelSelector` parameter; a malformed one is a 400, as the API server answers it. */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  if (!text?.trim()) return [];
  const list = tokens(text);
  let at = 0;
  const peek = () => list[at]!;
  const next = () => list[at++]!;
  const requirements: Requirement[] = [];
  for (;;) {
    let token = next();
    if (token.kind === 'symbol' && token.text === '!') {
      const key = next();
      if (key.kind !== 'identifier') unparsable(`found ${describe(key)}, expected: identifier after '!'`);
      checkKey(key.text);
      requirements.push({ key: key.text, operator: '!', values: [] });
    } else if (token.kind === 'identifier') {
      const key = token.text;
      checkKey(key);
      const op = peek();
      if (op.kind === 'end' || (op.kind === 'symbol' && op.text === ',')) {
        requirements.push({ key, operator: 'exists', values: [] });
      } else if (op.kind === 'symbol' && (op.text === '=' || op.text === '==' || op.text === '!=')) {
        next();
        const value = peek();
        let text = '';
        if (value.kind === 'identifier') {
          text = value.text;
          next();
        } else if (!(value.kind === 'end' || value.text === ',')) {
          unparsable(`found ${describe(value)}, expected: identifier`);
        }
        checkValue(key, 0, text);
        requirements.push({ key, operator: op.text === '!=' ? 'notin' : 'in', values: [text] });
      } else if (op.kind === 'symbol' && (op.text === '<' || op.text === '>')) {
        next();
        const value = next();
        if (value.kind !== 'identifier' || !/^-?\d+$/.test(value.text))
          unparsable(`for 'Gt', 'Lt' operators, the value must be an integer`);
        requirements.push({ key, operator: op.text === '>' ? 'gt' : 'lt', values: [value.text] });
      } else if (op.kind === 'identifier' && (op.text === 'in' || op.text === 'notin')) {
        next();
        const open = next();
        if (open.text !== '(') unparsable(`found ${describe(open)}, expected: '('`);
        const values: string[] = [];
        for (;;) {
          const value = next();
          if (value.kind === 'symbol' && value.text === ')') break;
          if (value.kind === 'identifier') {
            checkValue(key, values.length, value.text);
            values.push(value.text);
            const after = next();
            if (after.text === ')') break;
            if (after.text !== ',') unparsable(`found ${describe(after)}, expected: ',' or ')'`);
          } else {
            unparsable(`found ${describe(value)}, expected: ',', ')' or identifier`);
          }
        }
        if (!values.length) unparsable(`for 'in', 'notin' operators, values set can't be empty`);
        requirements.push({ key, operator: op.text, values });
      } else {
        unparsable(`found ${describe(op)}, expected: in, notin, =, ==, !=, gt, lt`);
      }
    } else {
      unparsable(`found ${describe(token)}, expected: !, identifier, or 'end of string'`);
    }
    token = next();
    if (token.kind === 'end') return requirements;
    if (token.text !== ',') unparsable(`found ${describe(token)}, expected: ',' or 'end of string'`);
  }
}

/** A metav1.LabelSelector object (PodDisruptionBudget's, …) as requirements. */
export function selectorOfObject(selector: LabelSelectorObject | undefined): LabelSelector {
  const requirements: Requirement[] = Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'in',
    values: [value],
  }));
  for (const expression of selector?.matchExpressions ?? []) {
    const operator = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' }[expression.operator];
    if (!operator)
      throw badRequest(`${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    requirements.push({
      key: expression.key,
      operator: operator as Operator,
      values: expression.values ?? [],
    });
  }
  return requirements;
}

function matchesRequirement(requirement: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key] ?? '';
  switch (requirement.operator) {
    case 'in':
      return has && requirement.values.includes(value);
    case 'notin':
      return !has || !requirement.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    default: {
      if (!has || !/^-?\d+$/.test(value)) return false;
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? Number(value) > bound : Number(value) < bound;
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  return selector.every((requirement) => matchesRequirement(requirement, labels ?? {}));
}
