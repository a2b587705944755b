import type Docker from 'dockerode';

/** A Docker engine as the worker names it, and the machine it runs bots on. */
export interface EngineInfo {
  /** The engine's host name and a short id (`docker info`), which tell hosts apart in heartbeats and metrics. */
  name: string;
  cpus: number;
  memoryBytes: number;
}

/** The engine's name (host name and a short id) and the machine it runs bots on. */
export async function engineInfo(engine: Docker): Promise<EngineInfo> {
  const info = (await engine.info()) as { Name?: string; ID?: string; NCPU?: number; MemTotal?: number };
  const name = `${info.Name ?? 'docker'}:${(info.ID ?? '').replace(/[^A-Za-z0-9]/g, '').slice(0, 12)}`;
  return {
    name: name.replace(/[^A-Za-z0-9_.:-]/g, '-').slice(0, 200),
    cpus: info.NCPU ?? 1,
    memoryBytes: info.MemTotal ?? 0,
  };
}
