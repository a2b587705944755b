import { describe, expect, it } from 'vitest';
import { isTransientStoreError } from '../../../../shared/infra/store-errors.js';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isTransientStoreError', () => {
  it('recognises an unreachable or restarting Postgres', () => {
    expect(isTransientStoreError(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isTransientStoreError(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(
      isTransientStoreError(withCode('terminating connection due to administrator command', '57P01')),
    ).toBe(true);
    expect(isTransientStoreError(withCode('the database system is starting up', '57P03'))).toBe(true);
    expect(isTransientStoreError(withCode('connection failure', '08006'))).toBe(true);
    expect(isTransientStoreError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isTransientStoreError(
        Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }),
      ),
    ).toBe(true);
    expect(
      isTransientStoreError(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')])),
    ).toBe(true);
  });

  it('does not excuse a statement the database refused', () => {
    expect(isTransientStoreError(withCode('duplicate key value violates unique constraint', '23505'))).toBe(
      false,
    );
    expect(isTransientStoreError(withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021'))).toBe(
      false,
    );
    expect(isTransientStoreError(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isTransientStoreError(undefined)).toBe(false);
    expect(isTransientStoreError('ECONNREFUSED')).toBe(false);
  });
});
