import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import {
  assertAssembleSeqs,
  assertByteRange,
  assertChunkSeq,
  assertRecordingKey,
  type ByteRange,
  paddedSeq,
  RangeNotSatisfiableError,
  RecordingChunkMissingError,
  RecordingNotFoundError,
  type RecordingStorage,
} from './storage.js';

const isCode = (error: unknown, ...codes: string[]) =>
  codes.includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');

/**
 * Recordings in a directory on this host: `<dir>/<key>.ogg` once assembled, its chunks in
 * `<dir>/<key>.parts/<seq>` before. Every file appears whole or not at all (written to a temporary
 * name, synced, renamed), so a crash leaves either the old state or the new one, plus at most a
 * `*.tmp` file that the next write or `remove` clears. Keys never contain dots, so no key's files can
 * be mistaken for another's.
 */
export class LocalRecordingStorage implements RecordingStorage {
  readonly kind = 'local' as const;
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  async putChunk(recordingKey: string, seq: number, bytes: Uint8Array): Promise<void> {
    assertRecordingKey(recordingKey);
    assertChunkSeq(seq);
    if ((await this.finalSize(recordingKey)) !== null) return;
    const partsDir = this.partsDir(recordingKey);
    await this.writeAtomically(partsDir, paddedSeq(seq), bytes);
  }

  async assemble(recordingKey: string, seqs: readonly number[]): Promise<{ sizeBytes: number }> {
    assertRecordingKey(recordingKey);
    assertAssembleSeqs(seqs);
    const existing = await this.finalSize(recordingKey);
    if (existing !== null) {
      await this.removeParts(recordingKey);
      return { sizeBytes: existing };
    }
    const finalPath = this.finalPath(recordingKey);
    const partsDir = this.partsDir(recordingKey);
    const tempPath = `${finalPath}.${randomBytes(6).toString('hex')}.tmp`;
    let handle: FileHandle | undefined;
    let sizeBytes = 0;
    try {
      handle = await open(tempPath, 'wx');
      // One chunk in memory at a time (each is at most ~100 KB).
      for (const seq of seqs) {
        let bytes: Buffer;
        try {
          bytes = await readFile(join(partsDir, paddedSeq(seq)));
        } catch (error) {
          if (!isCode(error, 'ENOENT')) throw error;
          // Another assembler may have finished meanwhile and removed the chunks.
          const done = await this.finalSize(recordingKey);
          if (done !== null) return { sizeBytes: done };
          throw new RecordingChunkMissingError(recordingKey, seq);
        }
        await handle.write(bytes);
        sizeBytes += bytes.length;
      }
      await handle.sync();
      await handle.close();
      handle = undefined;
      await rename(tempPath, finalPath);
      await syncDirectory(dirname(finalPath));
    } catch (error) {
      if (isCode(error, 'ENOENT') && (await this.finalSize(recordingKey)) === null) {
        // The parts folder itself is gone (or was never made): no chunk of it is stored.
        throw new RecordingChunkMissingError(recordingKey, seqs[0]!);
      }
      throw error;
    } finally {
      await handle?.close().catch(() => {});
      await rm(tempPath, { force: true });
    }
    await this.removeParts(recordingKey);
    return { sizeBytes };
  }

  async stat(recordingKey: string): Promise<{ sizeBytes: number } | null> {
    assertRecordingKey(recordingKey);
    const sizeBytes = await this.finalSize(recordingKey);
    return sizeBytes === null ? null : { sizeBytes };
  }

  async read(recordingKey: string, range?: ByteRange): Promise<Readable> {
    assertRecordingKey(recordingKey);
    if (range) assertByteRange(range);
    let handle: FileHandle;
    try {
      handle = await open(this.finalPath(recordingKey), constants.O_RDONLY);
    } catch (error) {
      if (isCode(error, 'ENOENT')) throw new RecordingNotFoundError(recordingKey);
      throw error;
    }
    try {
      // Sized through the open handle, so a concurrent remove can't change what we read.
      const { size } = await handle.stat();
      if (range && range.start >= size) throw new RangeNotSatisfiableError(recordingKey, range, size);
      return handle.createReadStream(
        range ? { start: range.start, end: Math.min(range.end, size - 1), autoClose: true } : {},
      );
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async remove(recordingKey: string): Promise<void> {
    assertRecordingKey(recordingKey);
    const finalPath = this.finalPath(recordingKey);
    await rm(finalPath, { force: true });
    await this.removeParts(recordingKey);
    // Temporary files of an assembly that crashed.
    const folder = dirname(finalPath);
    const prefix = `${basename(finalPath)}.`;
    const entries = await readdir(folder).catch((error) => {
      if (isCode(error, 'ENOENT')) return [] as string[];
      throw error;
    });
    for (const entry of entries) {
      if (entry.startsWith(prefix) && entry.endsWith('.tmp')) await rm(join(folder, entry), { force: true });
    }
    await this.removeEmptyFolders(folder);
  }

  async close(): Promise<void> {}

  private finalPath(recordingKey: string): string {
    return `${join(this.root, ...recordingKey.split('/'))}.ogg`;
  }

  private partsDir(recordingKey: string): string {
    return `${join(this.root, ...recordingKey.split('/'))}.parts`;
  }

  private async finalSize(recordingKey: string): Promise<number | null> {
    try {
      return (await stat(this.finalPath(recordingKey))).size;
    } catch (error) {
      if (isCode(error, 'ENOENT', 'ENOTDIR')) return null;
      throw error;
    }
  }

  private async removeParts(recordingKey: string): Promise<void> {
    const partsDir = this.partsDir(recordingKey);
    await rm(partsDir, { recursive: true, force: true });
    await this.removeEmptyFolders(dirname(partsDir));
  }

  /** Writes `name` in `folder` whole or not at all; the folder is made on demand. */
  private async writeAtomically(folder: string, name: string, bytes: Uint8Array): Promise<void> {
    const target = join(folder, name);
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    // A concurrent remove of a sibling recording may drop our freshly made empty folder: try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(folder, { recursive: true });
        const handle = await open(temp, 'wx');
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, target);
        return;
      } catch (error) {
        await rm(temp, { force: true });
        if (!isCode(error, 'ENOENT') || attempt >= 3) throw error;
      }
    }
  }

  /** Removes `folder` and its parents while they are empty, up to (not including) the root. */
  private async removeEmptyFolders(folder: string): Promise<void> {
    let current = folder;
    while (isInside(this.root, current)) {
      try {
        await rmdir(current);
      } catch (error) {
        if (isCode(error, 'ENOENT')) {
          // already gone: its parent may still be empty
        } else if (isCode(error, 'ENOTEMPTY', 'EEXIST')) {
          return;
        } else {
          throw error;
        }
      }
      current = dirname(current);
    }
  }
}

/** Whether `path` lies strictly inside `root`. */
function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Makes a rename in `folder` durable. */
async function syncDirectory(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
