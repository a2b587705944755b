import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// Users' Dockerfiles and CI install with `npm ci`, which refuses a lock file that lacks any
// platform's optional binaries (biome's, esbuild's, msgpackr's for macOS, Windows, musl…), even
// those it would not install here. `npm install` on one machine can leave them out; this keeps the
// committed lock complete. A dry run reads the lock and package.json only: nothing is installed.

const execFileAsync = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'meetbot-npm-ci-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('package-lock.json', () => {
  it('is complete enough for `npm ci` on any platform', async () => {
    for (const file of ['package.json', 'package-lock.json'])
      copyFileSync(join(ROOT, file), join(scratch, file));
    const result = await execFileAsync(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: scratch, timeout: 120_000 },
    ).then(
      () => 'ok',
      (error: { stderr?: string; message: string }) => (error.stderr ?? error.message).slice(0, 3000),
    );
    expect(result, 'run `npm install` and commit the lock file it writes').toBe('ok');
  });
});
