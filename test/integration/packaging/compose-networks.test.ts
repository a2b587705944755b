import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The compose deployment's networks as docker-compose itself resolves them (`docker-compose config`,
 * read as JSON through PyYAML, which docker-compose depends on): on an engine with bridges, bots get
 * a network where Redis is the only other member; Redis asks everyone for a password. This machine's
 * engine has no bridges, so the isolation itself is Docker's; this checks what the files ask of it.
 */
const execFileAsync = promisify(execFile);
const REPO_ROOT = new URL('../../../', import.meta.url).pathname;

interface ComposeService {
  networks?: Record<string, unknown>;
  network_mode?: string;
  environment?: Record<string, string | null>;
  command?: string[];
}
interface ComposeConfig {
  services: Record<string, ComposeService>;
  networks?: Record<string, { name?: string; internal?: boolean }>;
}

async function resolved(files: string[], env: Record<string, string> = {}): Promise<ComposeConfig> {
  const args = files.flatMap((file) => ['-f', `docker/${file}`]);
  const { stdout } = await execFileAsync('docker-compose', [...args, 'config'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      POSTGRES_PASSWORD: 'pg-secret',
      REDIS_PASSWORD: 'redis-secret',
      ...env,
    },
  }).catch((error: Error) => {
    throw new Error(`docker-compose config failed (is docker-compose installed?): ${error.message}`);
  });
  const { stdout: json } = await new Promise<{ stdout: string }>((resolve, reject) => {
    const child = execFile(
      'python3',
      ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))'],
      (error, out) => (error ? reject(error) : resolve({ stdout: out })),
    );
    child.stdin?.end(stdout);
  });
  return JSON.parse(json) as ComposeConfig;
}

function networksOf(service: ComposeService | undefined): string[] {
  return Object.keys(service?.networks ?? { default: {} }).sort();
}

describe('docker/compose.yml networks', () => {
  it('with bridges (compose.ports.yml): bots sit on a network of their own with Redis and nothing else', async () => {
    const config = await resolved(['compose.yml', 'compose.ports.yml']);
    const botNetwork = config.services.worker?.environment?.BOT_NETWORK;
    expect(botNetwork).toBe('meetbot-bots');
    const [key, bots] = Object.entries(config.networks ?? {}).find(
      ([, network]) => network.name === botNetwork,
    )!;
    expect(key).toBe('bots');
    // An ordinary bridge: bots reach the meeting platforms on the internet.
    expect(bots.internal).not.toBe(true);
    const onBotNetwork = Object.entries(config.services)
      .filter(([, service]) => networksOf(service).includes('bots'))
      .map(([name]) => name);
    expect(onBotNetwork).toEqual(['redis']);
    for (const name of ['postgres', 'api-1', 'api-2', 'worker', 'migrate']) {
      expect(networksOf(config.services[name]), name).toEqual(['default']);
    }
    // The stack's own network is another one.
    expect(config.networks?.default?.name).not.toBe(botNetwork);
  });

  it('BOT_NETWORK renames the bots network and the workers follow', async () => {
    const config = await resolved(['compose.yml', 'compose.ports.yml'], { BOT_NETWORK: 'acme-bots' });
    expect(config.services.worker?.environment?.BOT_NETWORK).toBe('acme-bots');
    expect(config.networks?.bots?.name).toBe('acme-bots');
    expect(config.networks?.default?.name).toBe('meetbot');
  });

  it.each([
    ['compose.ports.yml', 'redis'],
    ['compose.host.yml', '127.0.0.1'],
  ])('with %s: Redis asks everyone for its password, which only the services get', async (override, host) => {
    const config = await resolved(['compose.yml', override]);
    const command = config.services.redis?.command ?? [];
    expect(command[command.indexOf('--requirepass') + 1]).toBe('redis-secret');
    for (const name of ['api-1', 'api-2', 'worker', 'migrate']) {
      const url = new URL(config.services[name]?.environment?.REDIS_URL ?? '');
      expect(url.password, name).toBe('redis-secret');
      expect(url.hostname, name).toBe(host);
    }
    // Bots get a user of their own, not this URL (BOT_REDIS_ACL defaults to on).
    expect(config.services.worker?.environment?.BOT_REDIS_ACL ?? null).toBeNull();
  });

  it('with host networking (compose.host.yml) bots share the host network, as the docs say', async () => {
    const config = await resolved(['compose.yml', 'compose.host.yml']);
    expect(config.services.worker?.environment?.BOT_NETWORK).toBe('host');
    expect(config.services.redis?.network_mode).toBe('host');
  });
});
