/**
 * The processes a fleet run reports on, by name and pids: each API, each worker, each bot host (the
 * simulated bots), Redis, Postgres (the postmaster and its children, read when asked) and the bench
 * driver itself; their CPU, memory and connections to the stores (process-stats.ts).
 */
import { childrenOf, connectionsTo, cpuSeconds, pssMiB, residentMiB } from './process-stats.js';
import type { Services } from './start-services.js';
import type { Stores } from './start-stores.js';

export interface WatchedProcess {
  name: string;
  pids(): number[];
}

export interface Memory {
  /** Resident MiB now; for Postgres, the PSS of all its processes. */
  rss: number;
  /** Resident MiB at the process's peak; NaN for Postgres. */
  peak: number;
  pss: boolean;
}

/** Connections to a port by pid. */
export type ConnectionCount = (pids: number[], port: number) => number;

export function watchedProcesses(services: Services, stores: Stores): WatchedProcess[] {
  const { apis, workers } = services;
  const { redisPid, postmasterPid } = stores;
  const pgPids = () => [postmasterPid, ...childrenOf(postmasterPid)];
  return [
    ...apis.map((api, index) => ({ name: `api ${index + 1}`, pids: () => [api.pid] })),
    ...workers.map((worker) => ({ name: `worker ${worker.id}`, pids: () => [worker.pid] })),
    ...workers.map((worker) => ({
      name: `bot host ${worker.id} (simulated bots)`,
      pids: () => [worker.hostPid],
    })),
    { name: 'redis', pids: () => [redisPid] },
    { name: 'postgres (all processes)', pids: pgPids },
    { name: 'bench driver (readers, webhook receiver)', pids: () => [process.pid] },
  ];
}

/** CPU seconds each has used so far. */
export function cpuOf(processes: WatchedProcess[]): number[] {
  return processes.map((entry) => entry.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0));
}

/** What each process holds now. */
export function memoryOf(processes: WatchedProcess[]): Memory[] {
  return processes.map((entry) => {
    const pids = entry.pids();
    if (entry.name.startsWith('postgres'))
      return { rss: pids.reduce((sum, pid) => sum + pssMiB(pid), 0), peak: Number.NaN, pss: true };
    const one = residentMiB(pids[0]!);
    return { ...one, pss: false };
  });
}

/** The processes' connections to the ports now, counted later for any of their pids. */
export function connectionsNow(processes: WatchedProcess[], ports: number[]): ConnectionCount {
  const connections = connectionsTo(
    processes.flatMap((entry) => entry.pids()),
    ports,
  );
  return (pids, port) => pids.reduce((total, pid) => total + (connections.get(pid)?.[port] ?? 0), 0);
}
