import { chmod, chown, lchown, mkdir, readdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { VolumeFile } from './volume-plan.js';

/**
 * A secret or projected volume's files on the node, laid out as the kubelet's AtomicWriter lays
 * them out (so a reader sees what it would see in a pod): the files in a timestamped directory
 * `..2024_01_02_03_04_05.678901234`, a `..data` link to it, and one link per top-level entry
 * (`key -> ..data/key`). With an fsGroup the kubelet gives the volume to that group
 * (SetVolumeOwnership): owner root, group fsGroup, files `mode | 0440` (the volume is read-only),
 * directories `| 0550` and setgid. Without one, everything is root's with the modes asked for.
 */
const READ_ONLY_GROUP_BITS = 0o440;
const DIRECTORY_GROUP_BITS = 0o550;
const SETGID = 0o2000;

function stampName(at: Date): string {
  const iso = at.toISOString();
  const nanos = `${iso.slice(20, 23)}000000`;
  return `..${iso.slice(0, 19).replace(/[-:T]/g, '_')}.${nanos}`;
}

export async function writeVolumeFiles(
  directory: string,
  files: VolumeFile[],
  fsGroup: number | undefined,
): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o777 });
  await chmod(directory, 0o777);
  const stamp = stampName(new Date());
  const payload = join(directory, stamp);
  await mkdir(payload, { mode: 0o755 });
  const topLevel = new Set<string>();
  for (const file of files) {
    const target = resolve(payload, file.path);
    if (!inside(payload, target)) throw new Error(`a volume path outside its volume: ${file.path}`);
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    await writeFile(target, file.content);
    await chmod(target, fsGroup === undefined ? file.mode : file.mode | READ_ONLY_GROUP_BITS);
    topLevel.add(file.path.split('/')[0]!);
  }
  await symlink(stamp, join(directory, '..data'));
  for (const name of topLevel) await symlink(join('..data', name), join(directory, name));
  await own(directory, fsGroup ?? 0, fsGroup !== undefined);
}

/** Whether a path is within a directory (an entry named `..something` is). */
function inside(directory: string, path: string): boolean {
  const rest = relative(directory, path);
  return rest !== '' && !isAbsolute(rest) && rest !== '..' && !rest.startsWith(`..${sep}`);
}

async function own(path: string, group: number, groupBits: boolean): Promise<void> {
  await chown(path, 0, group);
  if (groupBits) await chmod(path, 0o777 | SETGID);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isSymbolicLink()) {
      await lchown(child, 0, group);
    } else if (entry.isDirectory()) {
      await chown(child, 0, group);
      if (groupBits) await chmod(child, 0o755 | DIRECTORY_GROUP_BITS | SETGID);
      await own(child, group, groupBits);
    } else {
      await chown(child, 0, group);
    }
  }
}

/**
 * The file a subPath mount binds: the entry resolved through the volume's links, as the kubelet's
 * subpath preparation resolves it; undefined when the volume has no such entry.
 */
export async function subPathSource(directory: string, subPath: string): Promise<string | undefined> {
  try {
    const real = await realpath(join(directory, subPath));
    return inside(await realpath(directory), real) ? real : undefined;
  } catch {
    return undefined;
  }
}
