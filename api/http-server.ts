import { type Server, STATUS_CODES } from 'node:http';
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
 * Requests Node rejects before the app sees them (unknown methods, bad Content-Length, oversized
 * headers, malformed request lines) get a JSON error like every other answer, not an empty body.
 */
export function answerMalformedRequests(server: Server): Server {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, message } = answerFor(error.code);
    const body = JSON.stringify({ error: message });
    // A HEAD request gets the headers only: a body after them would be read as the next response.
    const rawPacket = (error as { rawPacket?: Buffer }).rawPacket;
    const isHead = rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        (isHead ? '' : body),
    );
  });
  return server;
}
