import type { IncomingHttpHeaders } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppRouterContext } from '../context.js';

/**
 * Answers one POST /mcp through the SDK's streamable HTTP transport, stateless and in JSON: a fresh
 * transport and server per request (no session to keep, so any API replica answers any request),
 * and the JSON-RPC answer as one JSON body rather than an SSE stream (no tool sends progress). The
 * transport's web Response becomes the Koa answer, so the request log, metrics and error bodies of
 * the app apply to /mcp as to every route. `body` is the request's JSON, already read by jsonBody.
 */
export async function answerMcpRequest(
  ctx: AppRouterContext,
  body: unknown,
  server: McpServer,
): Promise<void> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // The transport reads only the headers (Accept, Content-Type, the protocol version) and the URL;
    // the origin is a stand-in, as the Host header may be missing or anything.
    const request = new Request(new URL(ctx.originalUrl, 'http://mcp.invalid'), {
      method: ctx.method,
      headers: webHeaders(ctx.req.headers),
    });
    const response = await transport.handleRequest(request, { parsedBody: body });
    ctx.status = response.status;
    response.headers.forEach((value, name) => {
      ctx.set(name, value);
    });
    const text = await response.text();
    if (text !== '') ctx.body = text;
  } finally {
    await server.close();
  }
}

function webHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}
