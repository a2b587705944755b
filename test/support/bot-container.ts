import type Docker from 'dockerode';

/**
 * One command run to completion in the bot image, the way the worker runs bots (host network, no
 * capabilities, no new privileges, a memory limit, the unprivileged user), then removed.
 */

export const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';
const TEST_LABEL = 'org.meetbot.test';
const RUN_TIMEOUT_MS = 60_000;

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  /** Replaces the entrypoint with `sh -c <shell>`. */
  shell?: string;
  /** Replaces the entrypoint with this command. */
  command?: string[];
  env?: string[];
  /** A seccomp profile's JSON text. */
  seccompProfile?: string;
  /** The value of the org.meetbot.test label, so a file finds what it left behind. */
  label?: string;
}

/** Splits Docker's multiplexed log stream (8-byte frame headers: stream id, then length). */
function demux(buffer: Buffer): { stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const length = buffer.readUInt32BE(offset + 4);
    const frame = buffer.subarray(offset + 8, offset + 8 + length);
    (stream === 2 ? err : out).push(frame);
    offset += 8 + length;
  }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}

const entrypointOf = (options: RunOptions) => {
  if (options.command) return { Entrypoint: options.command.slice(0, 1), Cmd: options.command.slice(1) };
  if (options.shell !== undefined) return { Entrypoint: ['sh', '-c'], Cmd: [options.shell] };
  return {};
};

export async function runInBotImage(docker: Docker, options: RunOptions = {}): Promise<RunResult> {
  const container = await docker.createContainer({
    Image: BOT_IMAGE,
    ...entrypointOf(options),
    Env: options.env ?? [],
    User: 'bot',
    Labels: { [TEST_LABEL]: options.label ?? 'bot-image' },
    HostConfig: {
      NetworkMode: 'host',
      CapDrop: ['ALL'],
      SecurityOpt: [
        'no-new-privileges',
        ...(options.seccompProfile === undefined ? [] : [`seccomp=${options.seccompProfile}`]),
      ],
      Memory: 768 * 1024 * 1024,
      ShmSize: 256 * 1024 * 1024,
    },
  });
  const begin = Date.now();
  try {
    await container.start();
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      container.wait() as Promise<{ StatusCode: number }>,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`container did not exit within ${RUN_TIMEOUT_MS} ms`)),
          RUN_TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const ms = Date.now() - begin;
    const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    return { exitCode: waited.StatusCode, ms, ...demux(logs) };
  } finally {
    await container.remove({ force: true });
  }
}

/** Removes the containers a file labelled `label` that a failed run may have left behind. */
export async function removeLeftBehind(docker: Docker, label: string): Promise<void> {
  const left = await docker.listContainers({ all: true, filters: { label: [`${TEST_LABEL}=${label}`] } });
  await Promise.all(
    left.map((info) =>
      docker
        .getContainer(info.Id)
        .remove({ force: true })
        .catch(() => {}),
    ),
  );
}
