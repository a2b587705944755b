import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRecordingStorage } from '../../shared/recordings/local-storage.js';

/** A recording storage in a fresh temporary directory (tests that don't look at recordings still need one). */
export function tempRecordingStorage(): LocalRecordingStorage {
  return new LocalRecordingStorage(mkdtempSync(join(tmpdir(), 'meetbot-recordings-')));
}
