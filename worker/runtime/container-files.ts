import type { ContainerFile } from './bot-runtime.js';

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/**
 * A tar archive (ustar) of regular files, as the engine's archive endpoint takes it
 * (dockerode's putArchive): each with its name, mode and owner, all extracted into one directory.
 * Written here because it is 30 lines, not worth a dependency.
 */
export function tarOf(
  files: readonly Pick<ContainerFile, 'name' | 'content' | 'mode' | 'uid' | 'gid'>[],
): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(file.name)) throw new Error(`not a plain file name: ${file.name}`);
    const header = Buffer.alloc(BLOCK, 0);
    header.write(file.name, 0, 'utf8');
    header.write(octal(file.mode, 8), 100, 'ascii');
    header.write(octal(file.uid, 8), 108, 'ascii');
    header.write(octal(file.gid, 8), 116, 'ascii');
    header.write(octal(file.content.length, 12), 124, 'ascii');
    header.write(octal(Math.floor(Date.now() / 1000), 12), 136, 'ascii');
    header.write('        ', 148, 'ascii');
    header.write('0', 156, 'ascii');
    header.write('ustar\u000000', 257, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    parts.push(header, file.content, Buffer.alloc((BLOCK - (file.content.length % BLOCK)) % BLOCK, 0));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}
