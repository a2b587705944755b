import { describe, expect, it } from 'vitest';
import { userShareOfPool } from '../../../../shared/accounts/bot-accounts-store.js';

describe("a user's share of the bot-account pool", () => {
  it.each([
    // places in the pool, BOT_ACCOUNT_USER_SHARE, what one user may hold
    [1, 0.5, 1],
    [2, 0.5, 1],
    [3, 0.5, 1],
    [4, 0.5, 2],
    [5, 0.5, 2],
    [10, 0.5, 5],
    [100, 0.29, 29],
    [10, 0.7, 7],
    [3, 0.1, 1],
    [6, 1, 6],
  ])('a pool of %i places at share %d lets one user hold %i', (pool, share, allowed) => {
    expect(userShareOfPool(pool, share)).toBe(allowed);
  });

  it('always leaves a place to others once the pool has more than one, below a share of 1', () => {
    for (let pool = 2; pool <= 200; pool += 1) {
      for (const share of [0.1, 0.25, 0.5, 0.75, 0.99])
        expect(userShareOfPool(pool, share)).toBeLessThan(pool);
    }
  });
});
