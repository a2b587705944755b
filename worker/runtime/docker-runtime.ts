import type Docker from 'dockerode';
import type { Logger } from '../../shared/infra/logger.js';
import type {
  BotContainerInfo,
  BotContainerSpec,
  BotRuntime,
  ContainerFile,
  ContainerUsage,
} from './bot-runtime.js';
import { tarOf } from './container-files.js';

/** The parts of the engine's stats answer we read. */
interface DockerStats {
  memory_stats?: { usage?: number; stats?: { inactive_file?: number; total_inactive_file?: number } };
  cpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number; online_cpus?: number };
}

const NOT_FOUND = 404;
const NOT_MODIFIED = 304;
const CONFLICT = 409;

function statusOf(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

function labelFilters(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([key, value]) => `${key}=${value}`);
}

/** Bot containers on a Docker engine, through dockerode. */
export class DockerRuntime implements BotRuntime {
  readonly sharedAmongWorkers = false;

  constructor(
    private readonly docker: Docker,
    private readonly log: Logger,
  ) {}

  async start(spec: BotContainerSpec): Promise<string> {
    const container = await this.docker.createContainer({
      name: spec.name,
      Image: spec.image,
      Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
      Labels: spec.labels,
      HostConfig: {
        NetworkMode: spec.networkMode,
        Memory: spec.memoryBytes,
        MemorySwap: spec.memoryBytes,
        NanoCpus: spec.nanoCpus,
        PidsLimit: spec.pidsLimit,
        CapDrop: ['ALL'],
        // The seccomp profile inline (the engine takes its JSON, not a path): it lets Chromium
        // keep its own sandbox (worker/runtime/bot-seccomp-profile.ts).
        SecurityOpt: [
          'no-new-privileges',
          ...(spec.seccompProfile === null ? [] : [`seccomp=${spec.seccompProfile}`]),
        ],
        // Chromium needs a real /dev/shm; Docker's 64 MB default crashes renderers.
        ShmSize: 256 * 1024 * 1024,
        Init: true,
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '2' } },
      },
    });
    try {
      // Before it starts, so the bot finds them at once (and they are never in its config).
      for (const [directory, files] of filesByDirectory(spec.files ?? [])) {
        await container.putArchive(tarOf(files), { path: directory });
      }
      await container.start();
    } catch (error) {
      await this.remove(container.id);
      throw error;
    }
    return container.id;
  }

  async usage(id: string): Promise<ContainerUsage | undefined> {
    try {
      // One sample, at once (without one-shot the engine waits a second for a second sample).
      const stats = (await this.docker
        .getContainer(id)
        .stats({ stream: false, 'one-shot': true } as { stream: false })) as unknown as DockerStats;
      const memory = stats.memory_stats ?? {};
      const inactive = memory.stats?.inactive_file ?? memory.stats?.total_inactive_file ?? 0;
      return {
        memoryBytes: Math.max(0, (memory.usage ?? 0) - inactive),
        cpuNanos: stats.cpu_stats?.cpu_usage?.total_usage ?? 0,
        systemCpuNanos: stats.cpu_stats?.system_cpu_usage ?? 0,
        onlineCpus: stats.cpu_stats?.online_cpus ?? 1,
      };
    } catch (error) {
      if (statusOf(error) === NOT_FOUND) return undefined;
      throw error;
    }
  }

  async inspect(id: string): Promise<BotContainerInfo | undefined> {
    try {
      const info = await this.docker.getContainer(id).inspect();
      return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        labels: info.Config.Labels ?? {},
        running: info.State.Running,
        exitCode: info.State.Running || info.State.Status === 'created' ? null : info.State.ExitCode,
        oomKilled: info.State.OOMKilled === true,
      };
    } catch (error) {
      if (statusOf(error) === NOT_FOUND) return undefined;
      throw error;
    }
  }

  async list(labels: Record<string, string>): Promise<BotContainerInfo[]> {
    const containers = await this.docker.listContainers({
      all: true,
      filters: { label: labelFilters(labels) },
    });
    return containers.map((container) => ({
      id: container.Id,
      name: (container.Names[0] ?? '').replace(/^\//, ''),
      labels: container.Labels ?? {},
      running: container.State === 'running',
      exitCode: container.State === 'exited' ? exitCodeFromStatus(container.Status) : null,
      oomKilled: false,
    }));
  }

  async stop(id: string, graceSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: graceSeconds });
    } catch (error) {
      const status = statusOf(error);
      if (status !== NOT_FOUND && status !== NOT_MODIFIED) throw error;
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true });
    } catch (error) {
      const status = statusOf(error);
      // 409: a removal is already in progress (another worker or the exit monitor got there first).
      if (status !== NOT_FOUND && status !== CONFLICT) throw error;
    }
  }

  async logsTail(id: string, lines: number): Promise<string> {
    try {
      const output = await this.docker
        .getContainer(id)
        .logs({ stdout: true, stderr: true, tail: lines, follow: false });
      return demultiplex(Buffer.isBuffer(output) ? output : Buffer.from(String(output)));
    } catch (error) {
      if (statusOf(error) === NOT_FOUND) return '';
      throw error;
    }
  }

  /** Follows Docker's `die` events, re-subscribing when the stream ends (e.g. the engine restarted). */
  async onExit(labels: Record<string, string>, listener: (id: string) => void): Promise<() => void> {
    let closed = false;
    let current: (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
    const subscribe = async (): Promise<void> => {
      const stream = (await this.docker.getEvents({
        filters: { type: ['container'], event: ['die'], label: labelFilters(labels) },
      })) as NodeJS.ReadableStream & { destroy?: () => void };
      current = stream;
      let buffer = '';
      stream.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf('\n');
          if (line) this.dispatchEvent(line, listener);
        }
      });
      let resubscribing = false;
      const resubscribe = () => {
        if (closed || resubscribing) return;
        resubscribing = true;
        this.log.warn('docker event stream ended; re-subscribing');
        const retry = () => {
          if (closed) return;
          subscribe().catch(() => setTimeout(retry, 2000).unref());
        };
        setTimeout(retry, 1000).unref();
      };
      stream.on('error', (error: Error) => {
        this.log.warn({ err: error }, 'docker event stream error');
        resubscribe();
      });
      stream.on('end', resubscribe);
      stream.on('close', resubscribe);
    };
    await subscribe();
    return () => {
      closed = true;
      current?.destroy?.();
    };
  }

  private dispatchEvent(line: string, listener: (id: string) => void): void {
    try {
      const event = JSON.parse(line) as { id?: string; Actor?: { ID?: string } };
      const id = event.id ?? event.Actor?.ID;
      if (id) listener(id);
    } catch (error) {
      this.log.warn({ err: error }, 'unreadable docker event');
    }
  }
}

function filesByDirectory(files: readonly ContainerFile[]): Map<string, ContainerFile[]> {
  const grouped = new Map<string, ContainerFile[]>();
  for (const file of files) grouped.set(file.directory, [...(grouped.get(file.directory) ?? []), file]);
  return grouped;
}

/** `docker ps` says e.g. "Exited (137) 2 seconds ago". */
function exitCodeFromStatus(status: string): number | null {
  const match = /Exited \((-?\d+)\)/.exec(status);
  return match?.[1] ? Number(match[1]) : null;
}

/** Docker multiplexes stdout/stderr of non-TTY containers in 8-byte-header frames. */
function demultiplex(raw: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const streamType = raw[offset];
    const size = raw.readUInt32BE(offset + 4);
    if ((streamType !== 1 && streamType !== 2) || offset + 8 + size > raw.length) return raw.toString('utf8');
    parts.push(raw.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
