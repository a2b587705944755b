import { describe, expect, it } from 'vitest';
import { mediaTokenValid, signMediaToken } from '../../../../shared/recordings/media-links.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const claims = { recordingId: 7, userId: 3, expiresAt: 2_000_000_000 };
const expected = { recordingId: 7, userId: 3, nowSeconds: 1_900_000_000 };

describe('media link tokens', () => {
  it('open their own recording until they expire', () => {
    const token = signMediaToken('secret', claims);
    expect(mediaTokenValid('secret', token, expected)).toBe(true);
    expect(mediaTokenValid('secret', token, { ...expected, nowSeconds: claims.expiresAt })).toBe(false);
    expect(mediaTokenValid('secret', token, { ...expected, recordingId: 8 })).toBe(false);
    expect(mediaTokenValid('other secret', token, expected)).toBe(false);
  });

  it('refuse every change of a character, the last one included (its spare bits decode the same)', () => {
    // Many signatures, so some end in a character whose neighbours differ only in the spare bits.
    for (let recordingId = 1; recordingId <= 64; recordingId += 1) {
      const token = signMediaToken('secret', { ...claims, recordingId });
      const mine = { ...expected, recordingId };
      for (const replacement of BASE64URL) {
        const changed = `${token.slice(0, -1)}${replacement}`;
        expect(mediaTokenValid('secret', changed, mine), changed).toBe(changed === token);
      }
    }
  });
});
