import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import Docker from 'dockerode';

const execFileAsync = promisify(execFile);

/**
 * A second Docker engine on this machine, standing in for another host: its own socket, data root,
 * exec root and containerd, no bridge and no iptables like the first. The data root is kept between
 * runs (under /var/lib) so an image copied once needn't be copied again.
 */
export interface DockerEngine {
  name: string;
  /** `unix://…`, for DOCKER_HOST. */
  host: string;
  docker: Docker;
  /** Copies an image from the default engine unless this engine already has the same one. */
  copyImage(image: string): Promise<void>;
  /** The host dies: its bot processes, containerd shims, containerd and dockerd all SIGKILLed at once. */
  kill(): Promise<void>;
  /** Starts the engine again on the same data root (after kill or stop). */
  restart(): Promise<void>;
  /** Stops the engine as an operator's restart does (SIGTERM, containers kept with live restore). */
  shutdown(): Promise<void>;
  /** Removes its containers and stops it cleanly. */
  stop(): Promise<void>;
  log(): string;
}

export interface EngineOptions {
  /** dockerd --live-restore: containers keep running while the engine restarts. */
  liveRestore?: boolean;
}

export async function startDockerEngine(name: string, options: EngineOptions = {}): Promise<DockerEngine> {
  if (!/^[a-z0-9-]{1,20}$/.test(name)) throw new Error(`engine name ${name}: a-z, 0-9 and - only`);
  const dataRoot = `/var/lib/meetbot-test-engines/${name}`;
  // Short: containerd's socket lives under it and Unix socket paths are limited to 108 bytes.
  const execRoot = `/run/mbt-engine-${name}`;
  const socket = `${execRoot}.sock`;
  const logFile = `${dataRoot}.log`;
  mkdirSync(dataRoot, { recursive: true });
  const docker = new Docker({ socketPath: socket });
  let child: ChildProcess | undefined;

  const launch = async () => {
    const out = openSync(logFile, 'a');
    child = spawn(
      'dockerd',
      [
        '--iptables=false',
        '--ip6tables=false',
        '--bridge=none',
        `--host=unix://${socket}`,
        `--data-root=${dataRoot}`,
        `--exec-root=${execRoot}`,
        `--pidfile=${execRoot}.pid`,
        ...(options.liveRestore ? ['--live-restore'] : []),
      ],
      { detached: true, stdio: ['ignore', out, out] },
    );
    closeSync(out);
    child.unref();
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await docker.ping();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`engine ${name} did not start:\n${tail(logFile)}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
  };

  /** Every process of the engine SIGKILLed, and gone (reaped) before it may start again. */
  const killEngine = async () => {
    await killMatching(execRoot);
    await forgetPidFile(`${execRoot}/containerd/containerd.pid`);
    await forgetPidFile(`${execRoot}.pid`);
  };

  // A previous run's engine (a killed test) must not hold the exec root.
  await killEngine();
  await launch();
  return {
    name,
    host: `unix://${socket}`,
    docker,
    async copyImage(image) {
      const source = await new Docker().getImage(image).inspect();
      const present = await docker
        .getImage(image)
        .inspect()
        .catch(() => undefined);
      if (present?.Id === source.Id) return;
      await execFileAsync(
        'bash',
        ['-c', 'set -o pipefail; docker save "$1" | docker -H "$2" load -q', '_', image, `unix://${socket}`],
        {
          timeout: 10 * 60_000,
          maxBuffer: 1024 * 1024,
        },
      );
    },
    async kill() {
      const running = await docker.listContainers().catch(() => []);
      for (const container of running) {
        const pid = (
          await docker
            .getContainer(container.Id)
            .inspect()
            .catch(() => undefined)
        )?.State.Pid;
        if (pid) process.kill(pid, 'SIGKILL');
      }
      await killEngine();
    },
    async restart() {
      await launch();
    },
    async shutdown() {
      await terminate(child?.pid);
    },
    async stop() {
      const all = await docker.listContainers({ all: true }).catch(() => []);
      await Promise.all(
        all.map((c) =>
          docker
            .getContainer(c.Id)
            .remove({ force: true })
            .catch(() => {}),
        ),
      );
      await terminate(child?.pid);
      await killEngine();
    },
    log: () => tail(logFile),
  };
}

async function terminate(pid: number | undefined): Promise<void> {
  if (!pid || !isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 60_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs every process whose command line names `path` (dockerd, its containerd, the shims). */
async function killMatching(path: string): Promise<void> {
  await execFileAsync('pkill', ['-9', '-f', '--', path]).catch(() => undefined);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { stdout } = await execFileAsync('pgrep', ['-f', '--', path]).catch(() => ({ stdout: '' }));
    if (!stdout.trim()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits until the process a pid file names is gone (reaped, not only killed) and deletes the file:
 * dockerd reuses a containerd it believes still runs, and would wait for a dead one.
 */
async function forgetPidFile(file: string): Promise<void> {
  let pid = 0;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return;
  }
  const deadline = Date.now() + 15_000;
  while (pid > 0 && isAlive(pid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  rmSync(file, { force: true });
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-4000);
  } catch {
    return '';
  }
}
