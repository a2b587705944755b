import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../../../shared/search/query.js';

const schema = searchQuerySchema({ defaultLimit: 100, maxLimit: 1000 });

function problem(input: Record<string, unknown>): string {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  const issue = result.error.issues[0]!;
  return `${issue.path.join('.')}: ${issue.message}`;
}

describe('searchQuerySchema', () => {
  it('takes query-string values and JSON values alike', () => {
    const fromQueryString = schema.parse({ q: '  budget  ', meeting_id: '12', limit: '5', offset: '10' });
    const fromJson = schema.parse({ q: 'budget', meeting_id: 12, limit: 5, offset: 10 });
    expect(fromQueryString).toEqual(fromJson);
    expect(fromJson).toMatchObject({ text: 'budget', meetingId: 12, limit: 5, offset: 10 });
    expect(schema.parse({ q: 'budget' })).toMatchObject({ limit: 100, offset: 0 });
  });

  it('reads a date as a whole UTC day: from its start, to its end', () => {
    const query = schema.parse({ q: 'a', from: '2026-11-01', to: '2026-11-30' });
    expect(query.from?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(query.to?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    const oneDay = schema.parse({ q: 'a', from: '2024-02-29', to: '2024-02-29' });
    expect(oneDay.to!.getTime() - oneDay.from!.getTime()).toBe(86_400_000);
  });

  it('reads a time with Z or an offset exactly, and years before 100 as written', () => {
    const query = schema.parse({ q: 'a', from: '2026-11-22T10:00:00+02:00', to: '2026-11-22T10:00:00.5Z' });
    expect(query.from?.toISOString()).toBe('2026-11-22T08:00:00.000Z');
    expect(query.to?.toISOString()).toBe('2026-11-22T10:00:00.500Z');
    expect(schema.parse({ q: 'a', from: '0042-03-01' }).from?.getUTCFullYear()).toBe(42);
    expect(schema.parse({ q: 'a', to: '9999-12-31' }).to?.toISOString()).toBe('+010000-01-01T00:00:00.000Z');
  });

  it('names the field of every problem', () => {
    const date = 'must be an ISO 8601 date (2026-11-22) or time with Z or an offset (2026-11-22T10:00:00Z)';
    expect(problem({})).toBe('q: is required');
    expect(problem({ q: ['a', 'b'] })).toBe('q: must be a single string');
    expect(problem({ q: ' ' })).toBe('q: must not be empty');
    expect(problem({ q: 'x'.repeat(501) })).toBe('q: must be at most 500 characters');
    expect(problem({ q: 'a', from: '2026-02-29' })).toBe(`from: ${date}`);
    expect(problem({ q: 'a', from: '2026-11-22 10:00' })).toBe(`from: ${date}`);
    expect(problem({ q: 'a', from: '2026-11-22T10:00:00' })).toBe(`from: ${date}`);
    expect(problem({ q: 'a', to: '0000-12-31T00:00:00Z' })).toBe(`to: ${date}`);
    expect(problem({ q: 'a', from: '2026-11-22T10:00:00Z', to: '2026-11-22T10:00:00Z' })).toBe(
      'from: must be before to',
    );
    expect(problem({ q: 'a', native_meeting_id: '123' })).toBe(
      'native_meeting_id: needs platform (the same id can exist on both platforms)',
    );
    expect(problem({ q: 'a', meeting_id: 1.5 })).toBe('meeting_id: must be a whole number');
    expect(problem({ q: 'a', meeting_id: '1e3' })).toBe('meeting_id: must be a whole number');
    expect(problem({ q: 'a', limit: 1001 })).toBe('limit: must be at most 1000');
    expect(problem({ q: 'a', speaker: '' })).toBe('speaker: must not be empty');
  });
});
