import { describe, expect, it } from 'vitest';
import { join, raw, sql } from '../../../../shared/search/sql.js';

describe('sql', () => {
  it('keeps the values in the order of their placeholders, however the pieces nest', () => {
    const inner = join([sql`a = ${1}`, sql`b = ${'two'}`], ' OR ');
    const when = new Date('2026-11-22T10:00:00Z');
    const statement = sql`SELECT ${raw('x')} FROM t WHERE (${inner}) AND c < ${when} AND d = ANY(${[3, 4]})`;
    expect(statement.text).toBe('SELECT x FROM t WHERE (a = ? OR b = ?) AND c < ? AND d = ANY(?)');
    expect(statement.values).toEqual([1, 'two', when, [3, 4]]);
  });
});
