import knexPkg, { type Knex } from 'knex';
import pg from 'pg';

export type { Knex };
export type Db = Knex | Knex.Transaction;

/** The largest Postgres `integer` (our ids): a larger number names no row and can't be compared to one. */
export const MAX_DB_INTEGER = 2_147_483_647;

// int8 (COUNT(*), bigserial) as JS numbers: our counts and ids stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export function createKnex(databaseUrl: string, poolMax = 10): Knex {
  return knexPkg({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}
