import { readFileSync } from 'node:fs';
import Docker from 'dockerode';

/**
 * The worker's entry point in the service image (docker/compose.yml). A worker's `WORKER_ID` names its
 * bot containers and must be stable across restarts and unique per replica; the host name (the
 * default) is neither under `docker-compose up --scale worker=N` with host networking, where every
 * replica has the host's name. Without `WORKER_ID`, this one asks the Docker engine (the worker has
 * its socket anyway) for its own container's name, which compose keeps across re-creation
 * (`<project>_worker_<n>`), and uses `<engine host name>-<container name>`; then it runs the worker.
 */
async function containerWorkerId(): Promise<string | undefined> {
  // Docker bind-mounts /etc/hostname, /etc/hosts and /etc/resolv.conf from the container's folder.
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8');
  const id = /\/containers\/([0-9a-f]{64})\//.exec(mounts)?.[1];
  if (!id) return undefined;
  const engine = new Docker();
  const [container, info] = await Promise.all([
    engine.getContainer(id).inspect(),
    engine.info() as Promise<{ Name?: string }>,
  ]);
  const raw = `${info.Name ?? 'docker'}-${container.Name.replace(/^\//, '')}`;
  const clean = raw.replace(/[^A-Za-z0-9_.-]/g, '-');
  return clean.length > 64 ? clean.slice(-64) : clean;
}

if (!process.env.WORKER_ID) {
  try {
    const id = await containerWorkerId();
    if (id) process.env.WORKER_ID = id;
    else process.stderr.write('container-worker: not in a Docker container; WORKER_ID stays the host name\n');
  } catch (error) {
    process.stderr.write(
      `container-worker: cannot name this worker from Docker (${String(error)}); WORKER_ID stays the host name\n`,
    );
  }
}
await import('../worker/main.js');
