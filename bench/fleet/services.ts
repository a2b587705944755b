/**
 * The service processes of a fleet run: API processes (bench/support/api-process.ts) and worker
 * processes (worker-process.ts, each with its bot host), their logs tallied rather than printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startApi } from '../support/api-process.js';
import { LogTally } from './figures.js';
import { BEHAVIOUR_ENV, type BotBehaviour, type HostStats, STATS_FILE_ENV } from './host-protocol.js';

/** Webhooks to a receiver on 127.0.0.1 over plain http (on any port), the rest as deployed. */
export const LOOPBACK_WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PORTS: 'any',
};

export interface ApiService {
  url: string;
  pid: number;
  logs: LogTally;
  stop(): Promise<void>;
}

export async function startApiService(
  databaseUrl: string,
  env: Record<string, string>,
  options: { queuePrefix: string; pool: number; nodeArgs: string[] },
): Promise<ApiService> {
  const logs = new LogTally();
  const api = await startApi(databaseUrl, env, { ...options, onOutput: logs.source() });
  return {
    ...api,
    logs,
    // Its own shutdown gives up after SHUTDOWN_TIMEOUT_MS; a process that still hangs is killed.
    stop: async () => {
      const killer = setTimeout(() => {
        try {
          process.kill(api.pid, 'SIGKILL');
        } catch {}
      }, 30_000);
      await api.stop();
      clearTimeout(killer);
    },
  };
}

export interface WorkerService {
  id: string;
  pid: number;
  /** Its bot host's pid (the simulated container engine). */
  hostPid: number;
  statsFile: string;
  logs: LogTally;
  child: ChildProcess;
}

/** One worker process; resolves once it has started (re-adopted, taking launches) and its bot host runs. */
export function startWorkerService(options: {
  id: string;
  env: Record<string, string>;
  /** Node's own flags (e.g. --cpu-prof); the bot host, forked, inherits them. */
  nodeArgs: string[];
  behaviour: BotBehaviour;
  statsFile: string;
  timeoutMs: number;
}): Promise<WorkerService> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const logs = new LogTally((entry) => {
      if (entry.msg !== 'fleet worker ready' || settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        id: options.id,
        pid: child.pid ?? 0,
        hostPid: Number(entry.botHostPid),
        statsFile: options.statsFile,
        logs,
        child,
      });
    });
    const child = spawn(
      process.execPath,
      [...options.nodeArgs, '--import', 'tsx', 'bench/fleet/worker-process.ts'],
      {
        env: {
          ...process.env,
          ...options.env,
          WORKER_ID: options.id,
          [BEHAVIOUR_ENV]: JSON.stringify(options.behaviour),
          [STATS_FILE_ENV]: options.statsFile,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', logs.source());
    child.stderr?.on('data', logs.source());
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`worker ${options.id} ${why}; its last errors: ${JSON.stringify(logs.top(3))}`));
    };
    const timer = setTimeout(
      () => fail(`did not start within ${options.timeoutMs / 1000} s`),
      options.timeoutMs,
    );
    child.on('exit', (code) => fail(`exited with ${code} at start-up`));
  });
}

/** The counters each worker's bot host last wrote (a host whose file can't be read yet is left out). */
export function readHostStats(workers: WorkerService[]): HostStats[] {
  return workers.flatMap((worker) => {
    try {
      return [JSON.parse(readFileSync(worker.statsFile, 'utf8')) as HostStats];
    } catch {
      return [];
    }
  });
}
