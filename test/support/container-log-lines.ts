/**
 * Follows a container's log (stdout and stderr, from its start) line by line until it ends or
 * `stop()` is called. A container the worker removes when its bot exits takes its log with it, so
 * whoever needs a bot's log follows it while the bot runs.
 */
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';

export async function followContainerLines(
  docker: Docker,
  containerId: string,
  onLine: (line: string) => void,
): Promise<{ stop: () => void }> {
  const stream = (await docker.getContainer(containerId).logs({
    follow: true,
    stdout: true,
    stderr: true,
  })) as unknown as NodeJS.ReadableStream & { destroy?: () => void };
  const out = new PassThrough();
  docker.modem.demuxStream(stream, out, out);
  let buffer = '';
  out.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      onLine(line);
    }
  });
  stream.on('error', () => {});
  return { stop: () => stream.destroy?.() };
}
