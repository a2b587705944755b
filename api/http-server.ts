import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** What Node's own HTTP parser refused, answered in the API's `{ "error": "..." }` form. */
function answerFor(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'Request headers too large' };
    case 'HPE_INVALID_METHOD':
      return { status: 405, message: 'Method not allowed' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'Request timed out' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, message: 'Bad request: invalid Content-Length' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { status: 400, message: 'Bad request: invalid Transfer-Encoding' };
    default:
      return { status: 400, message: 'Bad request: malformed HTTP' };
  }
}

/**
 * The methods the API serves somewhere. A CONNECT names a host and port rather than one of our
 * resources, so its 405 lists what the server as a whole answers.
 */
const SERVED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/** A whole JSON error answer written straight to a socket the HTTP server no longer manages. */
export function writeRawError(
  socket: Duplex,
  status: number,
  message: string,
  options: { headOnly?: boolean; headers?: Record<string, string> } = {},
): void {
  const body = JSON.stringify({ error: message });
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extra +
      'Connection: close\r\n\r\n' +
      // A HEAD request gets the headers only: a body after them would be read as the next response.
      (options.headOnly ? '' : body),
  );
}

/**
 * How long an idle keep-alive connection stays open: longer than clients and load balancers keep
 * theirs (60 s is common), so the server never closes a connection a client is about to reuse,
 * which the client sees as ECONNRESET (Node's default is 5 s).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The API's HTTP server settings, for the service and the test stack alike. */
export function withKeepAlive(server: Server): Server {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

/**
 * Requests Node rejects or handles before the app sees them get a JSON error like every other
 * answer, not an empty body or a dropped connection: unknown methods, bad Content-Length, oversized
 * headers and malformed request lines (the parser's errors); CONNECT, which Node leaves to a proxy
 * and otherwise closes without a word; and an `Expect` other than `100-continue`, which Node would
 * answer with a bare 417. `Expect: 100-continue` keeps Node's own handling (100 Continue, then the app).
 */
export function answerMalformedRequests(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = answerFor(error.code);
    const rawPacket = (error as { rawPacket?: Buffer }).rawPacket;
    writeRawError(socket, status, message, {
      headOnly: rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ',
    });
  });

  // The socket is ours alone from here: without a listener its errors would go unhandled.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    writeRawError(socket, 405, 'Method not allowed: this server is not a proxy (CONNECT)', {
      headers: { Allow: SERVED_METHODS },
    });
  });

  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ error: 'Expectation failed: only "Expect: 100-continue" is supported' });
    // The client may send the body it meant to hold back anyway: close rather than parse it as a request.
    response.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    response.end(body);
  });
  return server;
}

/**
 * The HTTP server's part of a graceful shutdown: stop taking connections, end the live ones (SSE
 * streams end, WebSockets close with 1001: their clients would hold the close for hours, and
 * resume on another replica from their cursors), then wait for the requests in flight. A
 * connection whose response just ended (an SSE stream) is closed as soon as it is idle rather than
 * after the keep-alive timeout.
 */
export async function stopServing(server: Server, openFeeds: { closeAll(): Promise<void> }): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  await openFeeds.closeAll();
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();
  try {
    await closed;
  } finally {
    clearInterval(sweep);
  }
}
