import { mkdtempSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough, type Readable } from 'node:stream';
import Docker from 'dockerode';
import { containerEnvironment, expandedCommand } from './container-environment.js';
import { checkRunAsNonRoot, effectiveSecurity } from './container-security.js';
import { DOUBLE_CONTAINER_LABEL, dockerContainerOptions } from './docker-container-options.js';
import { containerMounts, seccompOptionsOf, writeVolumes } from './docker-pod-setup.js';
import {
  type ContainerExit,
  type ContainerUsage,
  ContainerWaiting,
  type Kubelet,
  type KubeletContext,
  type LogRequest,
  type StartedContainer,
} from './kubelet.js';
import { type Container, type Pod, timestamp } from './objects.js';
import { planVolumes } from './volume-plan.js';

/**
 * A kubelet whose pods are real containers on a Docker engine (the local one by default). It
 * starts a bound pod's one container with what a kubelet gives it (docker-container-options.ts),
 * its secret and projected volumes written on this host as the kubelet writes them
 * (volume-files.ts) and bind-mounted read-only, emptyDirs as tmpfs (`medium: Memory` at /dev/shm as
 * the shm size), and follows the engine's `die` events to report exits (exit code, OOMKilled, the
 * termination message). It never pulls images: one not on the engine waits as ErrImagePull.
 * Its containers are named `k8s-double_<container>_<pod>_<namespace>_<uid>_<attempt>` and labelled
 * `meetbot.test/kubernetes-double=<the double's instance>`; they go with their pod, and all of them
 * on close.
 *
 * Unlike a node: containers use the host's network (the engine runs with --bridge=none), so a pod's
 * IP is 127.0.0.1 and its hostname the host's (HOSTNAME is still the pod's name); a pod has no pause
 * container or PID/IPC namespace of its own beyond its one container's.
 */
export interface DockerKubeletOptions {
  docker?: Docker;
  /** The kubelet's seccomp profile root, where `Localhost` profiles are read (/var/lib/kubelet/seccomp on a node). */
  seccompDirectory?: string;
  /** Where pods' volume files are written (a node's /var/lib/kubelet/pods); a new temporary directory by default. */
  stateDirectory?: string;
  /** The kubelet's seccompDefault: containers without a profile get RuntimeDefault; off (the default), Unconfined. */
  seccompDefault?: boolean;
}

/** What the kubelet keeps of a termination message, and of the log tail that stands in for one. */
const TERMINATION_MESSAGE_BYTES = 4096;
const FALLBACK_LOG_LINES = 80;
const FALLBACK_LOG_BYTES = 2048;
/** How long an exit by SIGKILL waits for the engine's word that it was the kernel's OOM killer, and how often it asks. */
const OOM_REPORT_WAIT_MS = 5000;
const OOM_REPORT_POLL_MS = 250;
const NOT_FOUND = 404;
const NOT_MODIFIED = 304;

interface PodContainers {
  uid: string;
  /** Docker ids by attempt. */
  attempts: string[];
  terminationLogs: string[];
  fallbackToLogs: boolean;
}

interface DockerStats {
  memory_stats?: { usage?: number; stats?: { inactive_file?: number; total_inactive_file?: number } };
  cpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/**
 * Removes the containers of every Kubernetes double on an engine (by their label), e.g. what a test
 * process that died before closing its double left behind. Doubles still running lose theirs too.
 */
export async function removeDoubleContainers(docker: Docker): Promise<number> {
  const leftovers = await docker.listContainers({ all: true, filters: { label: [DOUBLE_CONTAINER_LABEL] } });
  await Promise.all(
    leftovers.map((container) =>
      docker
        .getContainer(container.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  return leftovers.length;
}

/** Docker's log stream frames (8-byte headers) as text. */
function demultiplex(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= buffer.length) {
    const size = buffer.readUInt32BE(at + 4);
    parts.push(buffer.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

function seconds(dockerTime: string | undefined): string | undefined {
  if (!dockerTime || dockerTime.startsWith('0001-')) return undefined;
  return timestamp(new Date(dockerTime));
}

export class DockerKubelet implements Kubelet {
  private readonly docker: Docker;
  private readonly stateDirectory: string;
  private readonly ownsStateDirectory: boolean;
  private context: KubeletContext | undefined;
  private events: (Readable & { destroy(): void }) | undefined;
  private readonly pods = new Map<string, PodContainers>();
  private readonly podOfContainer = new Map<string, string>();
  /** Containers the engine reported an `oom` event for (its OOMKilled flag may come later than `die`). */
  private readonly oomKilled = new Set<string>();
  private closed = false;

  constructor(private readonly options: DockerKubeletOptions = {}) {
    this.docker = options.docker ?? new Docker();
    this.ownsStateDirectory = options.stateDirectory === undefined;
    this.stateDirectory = options.stateDirectory ?? mkdtempSync(join(tmpdir(), 'kubelet-double-'));
  }

  private get attached(): KubeletContext {
    if (!this.context) throw new Error('the DockerKubelet is not attached to a Kubernetes double');
    return this.context;
  }

  async attach(context: KubeletContext): Promise<void> {
    this.context = context;
    await this.docker.ping();
    await this.followExits();
  }

  /** After the event stream was lost for a moment: any container that ended meanwhile is reported now. */
  private async reportMissedExits(): Promise<void> {
    for (const entry of this.pods.values()) {
      const id = entry.attempts.at(-1);
      if (id) await this.reportExit(id);
    }
  }

  /** The engine's `die` events for this double's containers, followed again if the stream ends. */
  private async followExits(): Promise<void> {
    const stream = (await this.docker.getEvents({
      filters: {
        type: ['container'],
        event: ['die', 'oom'],
        label: [`${DOUBLE_CONTAINER_LABEL}=${this.attached.instance}`],
      },
    })) as Readable & { destroy(): void };
    this.events = stream;
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      try {
        const event = JSON.parse(line) as {
          id?: string;
          Action?: string;
          status?: string;
          Actor?: { ID?: string };
        };
        const id = event.Actor?.ID ?? event.id;
        if (!id) return;
        if ((event.Action ?? event.status) === 'oom') this.oomKilled.add(id);
        else void this.reportExit(id);
      } catch {
        // Not an event line.
      }
    });
    stream.on('error', () => undefined);
    stream.on('close', () => {
      if (this.closed) return;
      const again = () => {
        if (this.closed) return;
        this.followExits()
          .then(() => this.reportMissedExits())
          .catch(() => setTimeout(again, 1000).unref());
      };
      setTimeout(again, 500).unref();
    });
  }

  private async exitOf(id: string): Promise<ContainerExit | undefined> {
    let info: Docker.ContainerInspectInfo;
    try {
      info = await this.docker.getContainer(id).inspect();
    } catch (error) {
      if (statusOf(error) === NOT_FOUND) return undefined;
      throw error;
    }
    if (info.State.Running || info.State.Status === 'created') return undefined;
    const exitCode = info.State.ExitCode;
    const podUid = this.podOfContainer.get(id);
    const entry = podUid ? this.pods.get(podUid) : undefined;
    const attempt = entry ? entry.attempts.indexOf(id) : -1;
    const message =
      entry && attempt >= 0 ? await this.terminationMessage(entry, attempt, id, exitCode) : undefined;
    const startedAt = seconds(info.State.StartedAt);
    return {
      exitCode,
      reason:
        info.State.OOMKilled || this.oomKilled.has(id) ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error',
      ...(message && { message }),
      ...(startedAt && { startedAt }),
      finishedAt: seconds(info.State.FinishedAt) ?? timestamp(),
    };
  }

  /** The file the container wrote at terminationMessagePath, or with FallbackToLogsOnError and a failure, its log's tail. */
  private async terminationMessage(
    entry: PodContainers,
    attempt: number,
    id: string,
    exitCode: number,
  ): Promise<string | undefined> {
    const path = entry.terminationLogs[attempt];
    const written = path ? await readFile(path).catch(() => Buffer.alloc(0)) : Buffer.alloc(0);
    if (written.length) return written.subarray(0, TERMINATION_MESSAGE_BYTES).toString('utf8');
    if (!entry.fallbackToLogs || exitCode === 0) return undefined;
    const logs = await this.dockerLogs(id, { tailLines: FALLBACK_LOG_LINES }).catch(() => '');
    return Buffer.from(logs).subarray(-FALLBACK_LOG_BYTES).toString('utf8') || undefined;
  }

  private async reportExit(id: string): Promise<void> {
    const podUid = this.podOfContainer.get(id);
    if (!podUid || this.closed) return;
    let exit = await this.exitOf(id).catch(() => undefined);
    // Killed with a memory limit: by the kernel for memory, the engine may say so (its `oom` event,
    // its OOMKilled flag) a moment after the `die` event, longer on a busy machine.
    const limited = async () =>
      ((
        await this.docker
          .getContainer(id)
          .inspect()
          .catch(() => undefined)
      )?.HostConfig.Memory ?? 0) > 0;
    if (exit?.exitCode === 137 && exit.reason !== 'OOMKilled' && (await limited())) {
      for (let waited = 0; exit?.reason !== 'OOMKilled' && waited < OOM_REPORT_WAIT_MS; ) {
        await new Promise((resolve) => setTimeout(resolve, OOM_REPORT_POLL_MS));
        waited += OOM_REPORT_POLL_MS;
        exit = (await this.exitOf(id).catch(() => undefined)) ?? exit;
      }
    }
    if (exit) this.attached.exited(podUid, `docker://${id}`, exit);
  }

  private podDirectory(uid: string): string {
    return join(this.stateDirectory, 'pods', uid);
  }

  async start(pod: Pod, attempt: number): Promise<StartedContainer> {
    const context = this.attached;
    const uid = pod.metadata.uid ?? '';
    const container = pod.spec.containers?.[0];
    if (!container?.image) throw new ContainerWaiting('CreateContainerError', 'no container');
    const image = await this.image(container);
    const plans = planVolumes(pod, context, '127.0.0.1');
    const environment = containerEnvironment(pod, container, context, '127.0.0.1');
    const security = effectiveSecurity(pod, container);
    checkRunAsNonRoot(pod, container, security, image.Config.User ?? '');
    const seccompOptions = await seccompOptionsOf(security.seccomp, security.privileged, this.options);
    const podDirectory = this.podDirectory(uid);
    const volumeDirectories = await writeVolumes(podDirectory, plans, security.fsGroup, attempt);
    const terminationLog = join(podDirectory, 'containers', container.name, `${attempt}-termination-log`);
    await mkdir(join(podDirectory, 'containers', container.name), { recursive: true });
    await writeFile(terminationLog, '');
    // Written by the container's user, whoever it is.
    await chmod(terminationLog, 0o666);
    const { mounts, shmSizeBytes } = await containerMounts(
      container,
      plans,
      volumeDirectories,
      security.fsGroup,
    );
    mounts.push({
      kind: 'bind',
      source: terminationLog,
      target: container.terminationMessagePath ?? '/dev/termination-log',
      readOnly: false,
    });
    const { command, args } = expandedCommand(container, environment);
    const options = dockerContainerOptions({
      pod,
      container,
      attempt,
      instance: context.instance,
      environment,
      command,
      args,
      security,
      imageUser: image.Config.User ?? '',
      seccompOptions,
      mounts,
      shmSizeBytes,
    });
    let created: Docker.Container;
    try {
      created = await this.docker.createContainer(options);
    } catch (error) {
      throw new ContainerWaiting('CreateContainerError', (error as Error).message);
    }
    const entry = this.pods.get(uid) ?? { uid, attempts: [], terminationLogs: [], fallbackToLogs: false };
    entry.attempts[attempt] = created.id;
    entry.terminationLogs[attempt] = terminationLog;
    entry.fallbackToLogs = container.terminationMessagePolicy === 'FallbackToLogsOnError';
    this.pods.set(uid, entry);
    this.podOfContainer.set(created.id, uid);
    const imageId = `docker://${image.Id}`;
    try {
      await created.start();
    } catch (error) {
      // The runtime created it but could not run it (no such executable…): it ends at once, StartError.
      const now = timestamp();
      setImmediate(() =>
        context.exited(uid, `docker://${created.id}`, {
          exitCode: 128,
          reason: 'StartError',
          message: (error as Error).message,
          startedAt: now,
          finishedAt: now,
        }),
      );
      return { containerId: `docker://${created.id}`, imageId, startedAt: now };
    }
    const info = await created.inspect();
    return {
      containerId: `docker://${created.id}`,
      imageId,
      startedAt: seconds(info.State.StartedAt) ?? timestamp(),
    };
  }

  private async image(container: Container): Promise<Docker.ImageInspectInfo> {
    try {
      return await this.docker.getImage(container.image!).inspect();
    } catch (error) {
      if (statusOf(error) !== NOT_FOUND) throw error;
      if (container.imagePullPolicy === 'Never')
        throw new ContainerWaiting(
          'ErrImageNeverPull',
          `Container image "${container.image}" is not present with pull policy of Never`,
        );
      throw new ContainerWaiting(
        'ErrImagePull',
        `the Kubernetes test double does not pull images: "${container.image}" is not on the Docker engine`,
      );
    }
  }

  private current(podUid: string): string | undefined {
    return this.pods.get(podUid)?.attempts.at(-1);
  }

  async stop(podUid: string, graceSeconds: number): Promise<ContainerExit | undefined> {
    const id = this.current(podUid);
    if (!id) return undefined;
    try {
      await this.docker.getContainer(id).stop({ t: graceSeconds });
    } catch (error) {
      const status = statusOf(error);
      if (status !== NOT_MODIFIED && status !== NOT_FOUND) throw error;
    }
    return this.exitOf(id);
  }

  async kill(podUid: string): Promise<void> {
    const id = this.current(podUid);
    if (!id) return;
    await this.docker
      .getContainer(id)
      .kill({ signal: 'SIGKILL' })
      .catch(() => undefined);
  }

  async remove(podUid: string): Promise<void> {
    const entry = this.pods.get(podUid);
    this.pods.delete(podUid);
    for (const id of entry?.attempts ?? []) {
      if (!id) continue;
      this.podOfContainer.delete(id);
      this.oomKilled.delete(id);
      await this.docker
        .getContainer(id)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    }
    await rm(this.podDirectory(podUid), { recursive: true, force: true });
  }

  private async dockerLogs(id: string, request: LogRequest): Promise<string> {
    const output = await this.docker.getContainer(id).logs({
      stdout: true,
      stderr: true,
      follow: false,
      timestamps: request.timestamps === true,
      ...(request.tailLines !== undefined ? { tail: request.tailLines } : {}),
      ...(request.sinceSeconds !== undefined
        ? { since: Math.floor(Date.now() / 1000) - request.sinceSeconds }
        : {}),
    });
    return demultiplex(Buffer.isBuffer(output) ? output : Buffer.from(String(output)));
  }

  async logs(pod: Pod, request: LogRequest): Promise<string | Readable> {
    const attempts = this.pods.get(pod.metadata.uid ?? '')?.attempts ?? [];
    const id = request.previous ? attempts.at(-2) : attempts.at(-1);
    if (!id) return '';
    if (request.follow) {
      const stream = (await this.docker.getContainer(id).logs({
        stdout: true,
        stderr: true,
        follow: true,
        timestamps: request.timestamps === true,
        ...(request.tailLines !== undefined ? { tail: request.tailLines } : {}),
      })) as Readable;
      const text = new PassThrough();
      this.docker.modem.demuxStream(stream, text, text);
      stream.on('end', () => text.end());
      text.on('close', () => stream.destroy());
      return text;
    }
    const text = await this.dockerLogs(id, request);
    return request.limitBytes !== undefined
      ? Buffer.from(text).subarray(0, request.limitBytes).toString('utf8')
      : text;
  }

  /** CPU over the engine's one-second sample, memory as working set (usage less inactive file cache). */
  async usage(pod: Pod): Promise<ContainerUsage | undefined> {
    const id = this.current(pod.metadata.uid ?? '');
    if (!id) return undefined;
    let stats: DockerStats;
    try {
      stats = (await this.docker.getContainer(id).stats({ stream: false })) as unknown as DockerStats;
    } catch (error) {
      if (statusOf(error) === NOT_FOUND) return undefined;
      throw error;
    }
    const cpu =
      (stats.cpu_stats?.cpu_usage?.total_usage ?? 0) - (stats.precpu_stats?.cpu_usage?.total_usage ?? 0);
    const system = (stats.cpu_stats?.system_cpu_usage ?? 0) - (stats.precpu_stats?.system_cpu_usage ?? 0);
    const cpus = stats.cpu_stats?.online_cpus ?? 1;
    const memory = stats.memory_stats ?? {};
    const inactive = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? 0;
    return {
      cpuNanocores: system > 0 && cpu > 0 ? (cpu / system) * cpus * 1e9 : 0,
      memoryBytes: Math.max(0, (memory.usage ?? 0) - inactive),
    };
  }

  /** Removes every container of this double (by its label), and the state directory it made. */
  async close(): Promise<void> {
    this.closed = true;
    this.events?.destroy();
    const instance = this.context?.instance;
    if (instance) {
      const leftovers = await this.docker.listContainers({
        all: true,
        filters: { label: [`${DOUBLE_CONTAINER_LABEL}=${instance}`] },
      });
      await Promise.all(
        leftovers.map((container) =>
          this.docker
            .getContainer(container.Id)
            .remove({ force: true, v: true })
            .catch(() => undefined),
        ),
      );
    }
    this.pods.clear();
    this.podOfContainer.clear();
    if (this.ownsStateDirectory) await rm(this.stateDirectory, { recursive: true, force: true });
  }
}
