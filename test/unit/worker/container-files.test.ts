import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tarOf } from '../../../worker/runtime/container-files.js';

describe('tarOf', () => {
  it('writes a tar that tar(1) lists with each file’s mode, owner and content', () => {
    const content = Buffer.from('{"cookies":[]}'.repeat(50));
    const archive = tarOf([{ name: 'session.json', content, mode: 0o600, uid: 10001, gid: 10001 }]);
    expect(archive.length % 512).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'tar-'));
    writeFileSync(join(dir, 'a.tar'), archive);
    const listing = execFileSync('tar', ['-tvnf', join(dir, 'a.tar')], { encoding: 'utf8' });
    expect(listing).toMatch(/^-rw------- 10001\/10001\s+700 .* session\.json$/m);
    execFileSync('tar', ['-xf', join(dir, 'a.tar'), '-C', dir, '--no-same-owner']);
    expect(readFileSync(join(dir, 'session.json'))).toEqual(content);
    expect(statSync(join(dir, 'session.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a name that is a path', () => {
    expect(() =>
      tarOf([{ name: '../etc/passwd', content: Buffer.alloc(1), mode: 0o600, uid: 0, gid: 0 }]),
    ).toThrow(/plain file name/);
  });
});
