import Docker from 'dockerode';
import type { Config } from '../../shared/infra/config.js';
import type { BotRuntime } from './bot-runtime.js';
import { DockerRuntime } from './docker-runtime.js';
import { engineInfo } from './engine-info.js';
import type { Logger } from '../../shared/infra/logger.js';

/** Where a worker's bots run: the runtime, and how heartbeats, events and metrics name it. */
export interface BotHost {
  runtime: BotRuntime;
  /** DOCKER_HOST_NAME, else the engine's name and id, or `kubernetes:<namespace>`. */
  name: string;
  /**
   * The machine every bot of this worker runs on, when one does (a Docker engine's): its size sets
   * the default slots. A cluster's scheduler places bots on its nodes instead.
   */
  machine?: { cpus: number; memoryBytes: number };
}

/** Bots as containers on the Docker engine of DOCKER_HOST (or the local socket). */
export async function dockerBotHost(config: Config, log: Logger, docker = new Docker()): Promise<BotHost> {
  const engine = await engineInfo(docker);
  return {
    runtime: new DockerRuntime(docker, log),
    name: config.DOCKER_HOST_NAME ?? engine.name,
    machine: { cpus: engine.cpus, memoryBytes: engine.memoryBytes },
  };
}
