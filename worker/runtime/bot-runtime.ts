/**
 * What a worker needs from a container engine to run bots. Docker implements it (docker-runtime.ts),
 * and so does Kubernetes, one pod per bot (kubernetes/kubernetes-runtime.ts).
 */
export interface BotContainerSpec {
  name: string;
  image: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  memoryBytes: number;
  nanoCpus: number;
  pidsLimit: number;
  networkMode: string;
  /**
   * The seccomp profile (JSON) the container runs under, which lets Chromium keep its own sandbox;
   * null: the engine's default profile (BOT_CHROMIUM_SANDBOX=off).
   */
  seccompProfile: string | null;
  /**
   * Files put into the container after it is created and before it starts (a signed-in bot's
   * session): never in its environment or labels, which `docker inspect` shows.
   */
  files?: ContainerFile[];
}

export interface ContainerFile {
  /** An existing directory of the image. */
  directory: string;
  name: string;
  content: Buffer;
  mode: number;
  uid: number;
  gid: number;
}

export interface BotContainerInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
  /** Set once the container has exited. */
  exitCode: number | null;
  /** The kernel killed a process in it for its memory limit (known from inspect; list says false). */
  oomKilled: boolean;
  /**
   * Set when the platform ended the bot for reasons of its own, not the bot's (an eviction, a
   * preemption, its node lost): what happened, in words. Its meeting is relaunched, not failed.
   */
  disruption?: string;
}

export interface ContainerUsage {
  /** Memory as `docker stats` shows it: the cgroup's usage less its inactive file cache. */
  memoryBytes: number;
  /** CPU time the container used so far, and the host's, in nanoseconds (a rate needs two samples). */
  cpuNanos: number;
  systemCpuNanos: number;
  onlineCpus: number;
  /** The engine's own rate where it keeps one (Kubernetes' metrics API), in cores; then the counters are 0. */
  cpuCores?: number;
}

/** What a runtime may tell of a launch while it waits (a pod no node can take yet). */
export interface LaunchProgress {
  waiting(detail: string): void;
}

/** A launch the runtime gave up placing: `reason` is the meeting's failure reason. */
export class BotNotPlacedError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface BotRuntime {
  /**
   * Whether every worker of the deployment sees the same bots, so any may take over a dead one's
   * (relabel): a cluster's namespace. Docker's labels are fixed, and each worker has its own engine.
   */
  readonly sharedAmongWorkers: boolean;
  /**
   * Creates and starts the container; resolves with its id once it runs. Throws BotNotPlacedError
   * when the platform can't place it.
   */
  start(spec: BotContainerSpec, progress?: LaunchProgress): Promise<string>;
  inspect(id: string): Promise<BotContainerInfo | undefined>;
  /** Containers (running or not) carrying every one of these labels. */
  list(labels: Record<string, string>): Promise<BotContainerInfo[]>;
  /** SIGTERM, then SIGKILL after `graceSeconds`. A container already gone is not an error. */
  stop(id: string, graceSeconds: number): Promise<void>;
  /** Removes the container (and kills it if it still runs). A container already gone is not an error. */
  remove(id: string): Promise<void>;
  /** The last lines the container printed (stdout and stderr). */
  logsTail(id: string, lines: number): Promise<string>;
  /** What a running container uses now, as the engine counts it; undefined when it is gone. */
  usage(id: string): Promise<ContainerUsage | undefined>;
  /** Changes a running bot's labels (a worker taking over a dead one's bot); only where sharedAmongWorkers. */
  relabel?(id: string, labels: Record<string, string>): Promise<void>;
  /** Calls back whenever a container carrying these labels exits; returns an unsubscribe function. */
  onExit(labels: Record<string, string>, listener: (id: string) => void): Promise<() => void>;
}

export const Labels = {
  deployment: 'meetbot.deployment',
  meetingId: 'meetbot.meeting-id',
  userId: 'meetbot.user-id',
  sessionId: 'meetbot.session-id',
  workerId: 'meetbot.worker-id',
} as const;
