import { execFile } from 'node:child_process';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { featureMergingLauncher } from '../../../bot/chromium-launcher.js';

const run = promisify(execFile);

/** A stand-in for Chromium that prints each argument it was given on its own line. */
async function argumentPrinter(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fake chromium's "));
  const path = join(dir, 'chromium');
  await writeFile(path, '#!/bin/sh\nfor arg do printf "%s\\n" "$arg"; done\n');
  await chmod(path, 0o755);
  return path;
}

describe('the Chromium launcher', () => {
  it('merges every --enable-features and --disable-features into one each, keeping the other arguments in order', async () => {
    const launcher = await featureMergingLauncher(await argumentPrinter());
    const { stdout } = await run(launcher, [
      '--disable-features=Translate,MediaRouter',
      '--enable-features=SkipListAccounts',
      '--user-data-dir=/tmp/a b',
      '--no-zygote',
      '--enable-features=NetworkServiceInProcess2',
      '--disable-features=AudioServiceOutOfProcess',
      'two words',
    ]);
    expect(stdout.split('\n').slice(0, -1)).toEqual([
      '--user-data-dir=/tmp/a b',
      '--no-zygote',
      'two words',
      '--enable-features=SkipListAccounts,NetworkServiceInProcess2',
      '--disable-features=Translate,MediaRouter,AudioServiceOutOfProcess',
    ]);
  });

  it('passes arguments through untouched when there are no feature lists', async () => {
    const launcher = await featureMergingLauncher(await argumentPrinter());
    const { stdout } = await run(launcher, ['--headless', '', '--x=$HOME "quoted"']);
    expect(stdout).toBe('--headless\n\n--x=$HOME "quoted"\n');
  });
});
