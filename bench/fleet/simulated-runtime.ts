/**
 * A BotRuntime whose "containers" are simulated bots (simulated-bot.ts) in a bot host process of its
 * own (bot-host-process.ts), which plays the worker's container engine: start, inspect, list, stop
 * (SIGTERM, then SIGKILL after the grace), remove, logs, usage and exits behave as Docker's do for
 * the worker (one engine per worker, so not shared among workers). The spec's environment and
 * files reach the bot as they would reach a container; nothing else of the spec means anything here.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type {
  BotContainerInfo,
  BotContainerSpec,
  BotRuntime,
  ContainerUsage,
} from '../../worker/runtime/bot-runtime.js';
import type { FromHost, ToHost } from './host-protocol.js';

interface SimulatedContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
  exitCode: number | null;
  logTail: string[];
  exited: Promise<void>;
  markExited: () => void;
}

const HOST_ENTRY = new URL('./bot-host-process.ts', import.meta.url).pathname;

function matches(labels: Record<string, string>, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}

export class SimulatedRuntime implements BotRuntime {
  readonly sharedAmongWorkers = false;
  private readonly containers = new Map<string, SimulatedContainer>();
  private readonly starting = new Map<string, () => void>();
  private readonly exitListeners = new Set<{
    labels: Record<string, string>;
    listener: (id: string) => void;
  }>();
  private lastUsage: { rssBytes: number; cpuMicros: number; bots: number } = {
    rssBytes: 0,
    cpuMicros: 0,
    bots: 0,
  };
  private hostGone = false;

  private constructor(
    private readonly host: ChildProcess,
    readonly hostPid: number,
  ) {
    host.on('message', (message: FromHost) => this.onMessage(message));
    host.on('exit', () => {
      // The engine died: every container it ran is gone with it.
      this.hostGone = true;
      for (const container of this.containers.values())
        if (container.running) this.exited(container.id, 137, []);
      for (const ready of this.starting.values()) ready();
    });
  }

  /** Forks the bot host (with this process's environment) and waits until it takes containers. */
  static async open(env: NodeJS.ProcessEnv = process.env): Promise<SimulatedRuntime> {
    const host = fork(HOST_ENTRY, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const [ready] = (await once(host, 'message')) as [FromHost];
    if (ready.type !== 'ready') throw new Error(`the bot host said ${ready.type} first`);
    return new SimulatedRuntime(host, ready.pid);
  }

  /** Ends the host and every bot in it (the bench's end; a real engine outlives its worker). */
  async close(): Promise<void> {
    if (this.hostGone) return;
    const gone = once(this.host, 'exit');
    this.host.disconnect();
    await gone;
  }

  async start(spec: BotContainerSpec): Promise<string> {
    if (this.hostGone) throw new Error('the bot host is gone');
    for (const container of this.containers.values()) {
      if (container.name === spec.name)
        throw new Error(`Conflict. The container name "/${spec.name}" is already in use`);
    }
    const id = randomBytes(32).toString('hex');
    let markExited: () => void = () => undefined;
    const exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });
    this.containers.set(id, {
      id,
      name: spec.name,
      labels: { ...spec.labels },
      running: true,
      exitCode: null,
      logTail: [],
      exited,
      markExited,
    });
    const started = new Promise<void>((resolve) => this.starting.set(id, resolve));
    this.send({
      type: 'start',
      id,
      name: spec.name,
      env: spec.env,
      files: (spec.files ?? []).map((file) => ({
        directory: file.directory,
        name: file.name,
        content: file.content.toString('base64'),
      })),
    });
    await started;
    this.starting.delete(id);
    if (this.hostGone) throw new Error('the bot host is gone');
    return id;
  }

  async inspect(id: string): Promise<BotContainerInfo | undefined> {
    const container = this.containers.get(id);
    return container ? this.info(container) : undefined;
  }

  async list(labels: Record<string, string>): Promise<BotContainerInfo[]> {
    return [...this.containers.values()]
      .filter((container) => matches(container.labels, labels))
      .map((container) => this.info(container));
  }

  async stop(id: string, graceSeconds: number): Promise<void> {
    const container = this.containers.get(id);
    if (!container?.running) return;
    this.send({ type: 'signal', id, signal: 'SIGTERM' });
    const inTime = await Promise.race([
      container.exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), graceSeconds * 1000).unref()),
    ]);
    if (inTime || !container.running) return;
    this.send({ type: 'signal', id, signal: 'SIGKILL' });
    await container.exited;
  }

  async remove(id: string): Promise<void> {
    const container = this.containers.get(id);
    if (!container) return;
    if (container.running) {
      this.send({ type: 'signal', id, signal: 'SIGKILL' });
      await container.exited;
    }
    this.containers.delete(id);
  }

  async logsTail(id: string, lines: number): Promise<string> {
    return (this.containers.get(id)?.logTail ?? []).slice(-lines).join('\n');
  }

  /** The host's own figures shared evenly among its bots: a simulated bot has no cgroup of its own. */
  async usage(id: string): Promise<ContainerUsage | undefined> {
    if (!this.containers.get(id)?.running) return undefined;
    const bots = Math.max(1, this.lastUsage.bots);
    return {
      memoryBytes: Math.round(this.lastUsage.rssBytes / bots),
      cpuNanos: 0,
      systemCpuNanos: 0,
      onlineCpus: 1,
      cpuCores: this.lastUsage.cpuMicros / 5e6 / bots,
    };
  }

  async onExit(labels: Record<string, string>, listener: (id: string) => void): Promise<() => void> {
    const entry = { labels, listener };
    this.exitListeners.add(entry);
    return () => this.exitListeners.delete(entry);
  }

  private info(container: SimulatedContainer): BotContainerInfo {
    return {
      id: container.id,
      name: container.name,
      labels: { ...container.labels },
      running: container.running,
      exitCode: container.exitCode,
      oomKilled: false,
    };
  }

  private onMessage(message: FromHost): void {
    if (message.type === 'started') this.starting.get(message.id)?.();
    else if (message.type === 'exited') this.exited(message.id, message.exitCode, message.logTail);
    else if (message.type === 'usage') this.lastUsage = message;
  }

  private exited(id: string, exitCode: number, logTail: string[]): void {
    const container = this.containers.get(id);
    if (!container?.running) return;
    container.running = false;
    container.exitCode = exitCode;
    container.logTail = logTail;
    container.markExited();
    for (const { labels, listener } of this.exitListeners) {
      if (matches(container.labels, labels)) listener(id);
    }
  }

  private send(message: ToHost): void {
    if (!this.hostGone && this.host.connected) this.host.send(message);
  }
}
