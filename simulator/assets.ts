import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The page files live in the source tree only (tsc copies no assets), so from sources (tsx) and
 * from dist/ alike we walk up from this module to the folder holding simulator/pages.
 */
export function findPagesDir(start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'simulator', 'pages');
    if (existsSync(join(candidate, 'google-meet', 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`simulator/pages not found above ${start}`);
    dir = parent;
  }
}

export interface Asset {
  body: Buffer;
  contentType: string;
}

/** Reads a file under the pages folder; undefined for anything outside it or of an unserved type. */
export async function readAsset(pagesDir: string, relativePath: string): Promise<Asset | undefined> {
  const root = resolve(pagesDir);
  const path = resolve(root, relativePath);
  const contentType = CONTENT_TYPES[extname(path)];
  if (!contentType || !path.startsWith(root + sep)) return undefined;
  const body = await readFile(path).catch(() => undefined);
  return body ? { body, contentType } : undefined;
}
