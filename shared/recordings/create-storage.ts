import type { Config } from '../infra/config.js';
import { LocalRecordingStorage } from './local-storage.js';
import { S3RecordingStorage, type S3RecordingStorageOptions } from './s3-storage.js';
import type { RecordingStorage } from './storage.js';

export type RecordingStorageConfig = Pick<
  Config,
  | 'RECORDING_STORAGE'
  | 'RECORDING_DIR'
  | 'S3_BUCKET'
  | 'S3_ENDPOINT'
  | 'S3_REGION'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
  | 'S3_FORCE_PATH_STYLE'
  | 'S3_KEY_PREFIX'
>;

/** Timeouts and sizes that are not operator settings (tests shorten them). */
export type S3Tuning = Pick<
  S3RecordingStorageOptions,
  'maxAttempts' | 'connectionTimeoutMs' | 'socketTimeoutMs' | 'partSizeBytes'
>;

/** The storage the configuration names: a local directory, or an S3-compatible bucket. */
export function createRecordingStorage(
  config: RecordingStorageConfig,
  tuning: S3Tuning = {},
): RecordingStorage {
  if (config.RECORDING_STORAGE === 'local') return new LocalRecordingStorage(config.RECORDING_DIR);
  if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required when RECORDING_STORAGE=s3');
  return new S3RecordingStorage({
    bucket: config.S3_BUCKET,
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    keyPrefix: config.S3_KEY_PREFIX,
    ...tuning,
  });
}
