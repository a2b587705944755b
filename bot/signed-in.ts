import { readFile, unlink } from 'node:fs/promises';
import { type StorageState, storageState } from '../shared/contract/storage-state.js';
import type { Outcome } from './end-signal.js';

/**
 * Reads the bot account's session the worker left in the container (a 0600 file of the bot's own)
 * and deletes it, so nothing that later runs in the container finds it on disk; the browser context
 * holds it from then on. Throws a message naming what is wrong (the bot then ends `invalid_config`).
 */
export async function takeStorageState(path: string): Promise<StorageState> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(
      `the bot account's session file ${path} is missing or unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  await unlink(path).catch(() => {});
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`the bot account's session file ${path} is not JSON`);
  }
  const parsed = storageState.safeParse(json);
  if (!parsed.success) throw new Error(`the bot account's session file ${path} is not a storage state`);
  return parsed.data;
}

/**
 * A signed-in bot that meets a sign-in screen was not refused as a guest: its account's session no
 * longer works, or the meeting wants another account (another organisation's); the pages are the
 * same, so the bot says both. That is `sign_in_expired`; the worker takes the account out of the
 * pool only when meetings of several users show it (worker/accounts/bot-account-expiry.ts).
 */
export function signedInOutcome(outcome: Outcome): Outcome {
  if (outcome.status !== 'failed' || outcome.reason !== 'sign_in_required') return outcome;
  return {
    status: 'failed',
    reason: 'sign_in_expired',
    detail:
      `signed in as the bot account, the meeting still asked for sign-in (the session no longer works, or the meeting wants another account)${outcome.detail ? `: ${outcome.detail}` : ''}`.slice(
        0,
        2000,
      ),
  };
}
