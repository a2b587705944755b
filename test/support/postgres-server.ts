import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './stack.js';

const execFileAsync = promisify(execFile);

/**
 * A Postgres cluster of a test's own (Debian's initdb and pg_ctl, trust authentication, its own port
 * and socket directory), so the test can restart it without touching anyone else's.
 */
export interface OwnPostgres {
  /** An admin URL (database `postgres`), for createTestDatabase. */
  url: string;
  port: number;
  /** pg_ctl stop: `fast` (connections are terminated, as an operator's restart does) or `immediate` (a crash). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
  log(): string;
}

/** The newest Debian Postgres binaries (/usr/lib/postgresql/<version>/bin). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error('no Postgres server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)');
  return join(root, versions[0]!, 'bin');
}

/** `settings`: server settings beyond the defaults (`-c name=value`), e.g. `{ shared_buffers: '2GB' }`. */
export async function startOwnPostgres(settings: Record<string, string> = {}): Promise<OwnPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-pg-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  const port = await freePort();
  // initdb and postgres refuse to run as root: as root, run them as the postgres user.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await execFileAsync('id', ['-u', 'postgres']);
    const { stdout: gid } = await execFileAsync('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const run = (program: string, args: string[]) =>
    asRoot
      ? execFileAsync('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], { cwd: dir })
      : execFileAsync(join(bin, program), args, { cwd: dir });

  await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const extra = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${extra.join('')}`;
  const start = async () => {
    await run('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      await stop('fast').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
  };
}
