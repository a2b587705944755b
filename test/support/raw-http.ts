import { connect } from 'node:net';

/**
 * Sends bytes as they are (no client-side checks) and returns the whole answer as text. The socket's
 * sending side is closed after the request unless `keepSending` (the server closes it instead, e.g.
 * with `Connection: close`): Node answers nothing after `100 Continue` to a client that already
 * closed its side.
 */
export function rawHttp(
  baseUrl: string,
  request: string,
  options: { keepSending?: boolean } = {},
): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      options.keepSending ? socket.write(request) : socket.end(request),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
  });
}

/** Status, headers (lower-case names) and JSON body of a raw answer. */
export function parseRawAnswer(answer: string): {
  status: number;
  headers: Record<string, string>;
  body: unknown;
} {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  let body: unknown;
  try {
    body = JSON.parse(rest.join('\r\n\r\n'));
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}
