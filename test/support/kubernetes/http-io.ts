import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-errors.js';

/** The API server refuses request bodies over 3 MiB. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ApiError(
        413,
        'RequestEntityTooLarge',
        `Request entity too large: limit is ${MAX_BODY_BYTES}`,
      );
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`the body of the request could not be decoded: ${(error as Error).message}`);
  }
}

export function sendJson(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendText(response: ServerResponse, text: string): void {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendError(response: ServerResponse, error: ApiError): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  sendJson(response, error.code, error.status());
}
