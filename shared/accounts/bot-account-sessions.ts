import { type StorageState, storageState } from '../contract/storage-state.js';
import { ServiceUnavailableError } from '../infra/errors.js';
import {
  open,
  type SealingKey,
  SealingError,
  seal,
  sealedKeyId,
  sealingKey,
  sealingKeyFrom,
} from '../infra/sealing.js';

/** Bound into every sealed session: a value sealed for another purpose does not open as one. */
const CONTEXT = 'meetbot bot-account storage state v1';

export const BOT_ACCOUNT_KEY_MISSING =
  'Signed-in bots are not configured: set BOT_ACCOUNT_KEY (32 random bytes in base64) on the API and the workers';

/**
 * Seals and opens bot accounts' browser sessions: seals with BOT_ACCOUNT_KEY, opens what
 * BOT_ACCOUNT_KEY or any of BOT_ACCOUNT_PREVIOUS_KEYS sealed (a rotation), each sealed session
 * naming its key's id. Without the key the service runs, and whatever needs a session answers 503
 * saying so.
 */
export class BotAccountSessions {
  private readonly current: SealingKey | null;
  private readonly previous: readonly SealingKey[];

  constructor(keyBase64: string | undefined, previousKeysBase64: readonly string[] = []) {
    this.current = keyBase64 === undefined ? null : sealingKey(sealingKeyFrom(keyBase64));
    this.previous = previousKeysBase64.map((base64) => sealingKey(sealingKeyFrom(base64)));
  }

  get configured(): boolean {
    return this.current !== null;
  }

  /** The current key's id (null without a key) and the previous keys' ids. */
  get keyIds(): { current: string | null; previous: string[] } {
    return { current: this.current?.id ?? null, previous: this.previous.map((key) => key.id) };
  }

  /** 503 with what to set, when the key is not configured. */
  assertConfigured(): void {
    this.requireKey();
  }

  seal(state: StorageState): Buffer {
    return seal(this.requireKey(), Buffer.from(JSON.stringify(state), 'utf8'), CONTEXT);
  }

  /**
   * The session; throws UnknownSealingKeyError when it names a key this process lacks, SealingError
   * when it does not open or is not a storage state any more.
   */
  open(sealed: Buffer): StorageState {
    const plaintext = open([this.requireKey(), ...this.previous], sealed, CONTEXT);
    const parsed = storageState.safeParse(JSON.parse(plaintext.toString('utf8')));
    if (!parsed.success) throw new SealingError('the sealed session is not a storage state');
    return parsed.data;
  }

  /**
   * How a stored session stands with this process's keys: under the current key; under a previous
   * one or sealed before key ids (`reseal` it); or under a key it does not have (`unknown`, with the
   * key id; null when a session from before key ids opens with none of the keys).
   */
  standing(sealed: Buffer): 'current' | 'reseal' | { unknown: string | null } {
    const keyId = sealedKeyId(sealed);
    if (keyId !== null && keyId === this.requireKey().id) return 'current';
    if (keyId !== null && !this.previous.some((key) => key.id === keyId)) return { unknown: keyId };
    if (keyId === null) {
      try {
        this.open(sealed);
      } catch {
        return { unknown: null };
      }
    }
    return 'reseal';
  }

  /** The same session sealed again with the current key. */
  reseal(sealed: Buffer): Buffer {
    return this.seal(this.open(sealed));
  }

  private requireKey(): SealingKey {
    if (!this.current) throw new ServiceUnavailableError(BOT_ACCOUNT_KEY_MISSING);
    return this.current;
  }
}
