import { type StorageState, storageState } from '../contract/storage-state.js';
import { ServiceUnavailableError } from '../infra/errors.js';
import { open, SealingError, seal, sealingKeyFrom } from '../infra/sealing.js';

/** Bound into every sealed session: a value sealed for another purpose does not open as one. */
const CONTEXT = 'meetbot bot-account storage state v1';

export const BOT_ACCOUNT_KEY_MISSING =
  'Signed-in bots are not configured: set BOT_ACCOUNT_KEY (32 random bytes in base64) on the API and the workers';

/**
 * Seals and opens bot accounts' browser sessions with BOT_ACCOUNT_KEY. Without the key the service
 * runs, and whatever needs a session answers 503 saying so.
 */
export class BotAccountSessions {
  private readonly key: Buffer | null;

  constructor(keyBase64: string | undefined) {
    this.key = keyBase64 === undefined ? null : sealingKeyFrom(keyBase64);
  }

  get configured(): boolean {
    return this.key !== null;
  }

  /** 503 with what to set, when the key is not configured. */
  assertConfigured(): void {
    this.requireKey();
  }

  seal(state: StorageState): Buffer {
    return seal(this.requireKey(), Buffer.from(JSON.stringify(state), 'utf8'), CONTEXT);
  }

  /** The session; throws when it does not open (another key) or is not a storage state any more. */
  open(sealed: Buffer): StorageState {
    const plaintext = open(this.requireKey(), sealed, CONTEXT);
    const parsed = storageState.safeParse(JSON.parse(plaintext.toString('utf8')));
    if (!parsed.success) throw new SealingError('the sealed session is not a storage state');
    return parsed.data;
  }

  private requireKey(): Buffer {
    if (!this.key) throw new ServiceUnavailableError(BOT_ACCOUNT_KEY_MISSING);
    return this.key;
  }
}
