import { z } from 'zod';

/**
 * A browser session as Playwright saves and restores it (`context.storageState()`,
 * `browser.newContext({ storageState })`): cookies, and each origin's localStorage. Operators register
 * one per bot account (POST /admin/bot-accounts); the bot opens its browser context with it. The
 * worker hands it to the bot in a file, never in the container's environment.
 */
export const STORAGE_STATE_MAX_BYTES = 256 * 1024;

const text = (max: number) =>
  z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);

export const storageStateCookie = z.object({
  name: text(4096).min(1, 'must not be empty'),
  value: text(16_384),
  domain: text(255).min(1, 'must not be empty'),
  path: text(2048).default('/'),
  /** Seconds since the epoch; -1: a session cookie. */
  expires: z.number({ error: 'must be a number' }).default(-1),
  httpOnly: z.boolean({ error: 'must be a boolean' }).default(false),
  secure: z.boolean({ error: 'must be a boolean' }).default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None'], { error: 'must be Strict, Lax or None' }).default('Lax'),
});

export const storageStateOrigin = z.object({
  origin: z.url({ protocol: /^https?$/, error: 'must be an http(s) origin' }).max(2048),
  localStorage: z
    .array(z.object({ name: text(4096), value: text(STORAGE_STATE_MAX_BYTES) }))
    .max(1000)
    .default([]),
});

export const storageState = z
  .object(
    {
      cookies: z.array(storageStateCookie).max(1000, 'must hold at most 1000 cookies').default([]),
      origins: z.array(storageStateOrigin).max(100, 'must hold at most 100 origins').default([]),
    },
    { error: 'must be a Playwright storage state: an object with cookies and origins' },
  )
  .refine((state) => state.cookies.length > 0 || state.origins.length > 0, {
    error: 'must hold at least one cookie or origin (an empty session signs nobody in)',
  })
  .refine((state) => Buffer.byteLength(JSON.stringify(state)) <= STORAGE_STATE_MAX_BYTES, {
    error: `must be at most ${STORAGE_STATE_MAX_BYTES} bytes as JSON`,
  });
export type StorageState = z.output<typeof storageState>;
