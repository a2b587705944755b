import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, type Knex } from '../../../shared/infra/knex.js';
import { startTestApi, type TestApi, type TestResponse, type TestUser } from '../../support/api.js';
import { connectMcp } from '../../support/mcp.js';

/**
 * Searches made slow for real: a transaction of the test's holds an exclusive lock on the table every
 * search reads first (the user's search languages), so each search waits in Postgres holding its pool
 * connection, exactly as a broad search does for up to SEARCH_TIMEOUT_MS, until the test lets go.
 */
class SearchBlocker {
  readonly #db: Knex;
  #release: (() => void) | undefined;
  #held: Promise<void> | undefined;

  constructor(databaseUrl: string) {
    this.#db = createKnex(databaseUrl, 2);
  }

  async hold(): Promise<void> {
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const released = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    this.#held = this.#db.transaction(async (trx) => {
      await trx.raw('LOCK TABLE search_user_configs IN ACCESS EXCLUSIVE MODE');
      locked();
      await released;
    });
    await isLocked;
  }

  /** Searches waiting in Postgres now (each holds one of the API's pool connections). */
  async waitingSearches(): Promise<number> {
    const { rows } = await this.#db.raw<{ rows: Array<{ count: number }> }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%search_user_configs%'`,
    );
    return rows[0]?.count ?? 0;
  }

  async release(): Promise<void> {
    this.#release?.();
    await this.#held;
  }

  async close(): Promise<void> {
    await this.release();
    await this.#db.destroy();
  }
}

function search(api: TestApi, user: TestUser, q = 'budget'): Promise<TestResponse> {
  return api.request('GET', `/search?q=${encodeURIComponent(q)}`, { key: user.key });
}

describe('SEARCH_CONCURRENCY_PER_USER', () => {
  let api: TestApi;
  let blocker: SearchBlocker;

  beforeAll(async () => {
    api = await startTestApi({ env: { SEARCH_CONCURRENCY_PER_USER: '2', SEARCH_TIMEOUT_MS: '60000' } });
    blocker = new SearchBlocker(api.database.url);
  });
  afterAll(async () => {
    await blocker?.close();
    await api?.close();
  });

  it('refuses a user’s third search with 429 and Retry-After while two run, on the REST route and the MCP tool alike; other users search on', async () => {
    const user = await api.createUser();
    const other = await api.createUser();
    const mcp = await connectMcp(api.baseUrl, user.key);
    try {
      await blocker.hold();
      const running = [search(api, user), search(api, user, 'deadline')];
      await expect.poll(() => blocker.waitingSearches(), { timeout: 20_000 }).toBe(2);

      const third = await search(api, user, 'invoice');
      expect(third.status).toBe(429);
      expect(third.body).toEqual({
        error: 'Too many searches at once for this user (at most 2); wait for one to finish',
      });
      expect(third.headers.get('retry-after')).toBe('1');
      expect(await mcp.error('search', { q: 'invoice' })).toBe(third.body.error);

      // The limit is the user's own: someone else's search is not refused.
      const others = search(api, other);
      await expect.poll(() => blocker.waitingSearches(), { timeout: 20_000 }).toBe(3);

      await blocker.release();
      for (const answer of await Promise.all([...running, others])) {
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toEqual({ total: 0, hits: [] });
      }
      // Their places are given back when they end.
      expect((await search(api, user)).status).toBe(200);
      expect((await search(api, user)).status).toBe(200);
    } finally {
      await mcp.close();
    }
  });
});

describe('SEARCH_CONCURRENCY: searches’ share of the pool', () => {
  let api: TestApi;
  let blocker: SearchBlocker;

  beforeAll(async () => {
    // The test database's pool has 20 connections (test/support/database.ts); SEARCH_CONCURRENCY is
    // left to its default, half of them. One user may run as many searches as they like here.
    api = await startTestApi({
      env: { DATABASE_POOL_MAX: '20', SEARCH_CONCURRENCY_PER_USER: '100', SEARCH_TIMEOUT_MS: '60000' },
    });
    blocker = new SearchBlocker(api.database.url);
  });
  afterAll(async () => {
    await blocker?.close();
    await api?.close();
  });

  it('runs at most half the pool’s searches at once, so GET /meetings answers while one user floods search; the rest wait their turn', async () => {
    const flooder = await api.createUser();
    const other = await api.createUser();
    await blocker.hold();
    const flood = Array.from({ length: 20 }, (_, index) => search(api, flooder, `word${index}`));
    await expect.poll(() => blocker.waitingSearches(), { timeout: 20_000 }).toBe(10);

    // Without the bound the 20 searches would hold all 20 connections and these would wait for one.
    for (const user of [flooder, other]) {
      const meetings = await api.request('GET', '/meetings', { key: user.key });
      expect(meetings.status, meetings.text).toBe(200);
      expect(meetings.body).toEqual({ meetings: [] });
    }
    expect(await blocker.waitingSearches()).toBe(10);

    await blocker.release();
    const answers = await Promise.all(flood);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
  }, 60_000);
});
