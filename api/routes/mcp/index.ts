import { requireAuth } from '../../context.js';
import type { McpDeps } from '../../mcp/deps.js';
import { mcpServerFor } from '../../mcp/server.js';
import type { Toolbox } from '../../mcp/tool.js';
import { answerMcpRequest } from '../../mcp/transport.js';
import { commonErrors, error } from '../../openapi/responses.js';
import { publicBaseUrl } from '../public-url.js';
import { routesOf, userOrBearerAuth } from '../route.js';
import { mcpRequest } from './schema.js';

export interface McpRouteDeps {
  mcp: McpDeps;
  /** The deployment's tools, their tools/list entries built once (api/mcp/tool.ts). */
  tools: Toolbox;
  /** PUBLIC_BASE_URL: where recordings' media URLs point (the request's origin when unset). */
  publicBaseUrl: string | undefined;
}

const route = routesOf<McpRouteDeps>();

export const mcpRoutes = [
  route({
    method: 'post',
    path: '/mcp',
    auth: userOrBearerAuth,
    body: mcpRequest,
    summary: 'MCP: the Model Context Protocol over streamable HTTP (stateless, JSON answers)',
    description:
      "Tools and resources for AI agents over the user's meetings, the same services as the REST routes: see docs/mcp.md. The key goes in X-API-Key or as `Authorization: Bearer <key>`; each POST counts against the per-key request rate. `Accept` must list `application/json` and `text/event-stream`. No sessions (no `Mcp-Session-Id`): GET and DELETE answer 405. A tool's refusal is a result with `isError` and the REST route's error text.",
    responses: {
      200: {
        description: 'The JSON-RPC response',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      202: { description: 'A notification or response was accepted (no body)' },
      400: error(
        'Not one JSON-RPC message (`Request body: must be one JSON-RPC message …`, `Request body is not valid JSON`); or a JSON-RPC error body from the MCP transport',
      ),
      ...commonErrors,
      401: error('Missing or invalid key (X-API-Key, or `Authorization: Bearer <key>`): `Unauthorized`'),
      406: { description: '`Accept` lacks application/json or text/event-stream (a JSON-RPC error body)' },
    },
    async handler(ctx, { body }, deps) {
      // The request's log line says what it asked: the JSON-RPC method, and for a call, the tool.
      const tool = body.method === 'tools/call' ? toolName(body.params) : undefined;
      ctx.state.log = ctx.state.log.child({ mcp: { method: body.method, ...(tool && { tool }) } });
      const server = mcpServerFor(deps.tools, {
        deps: deps.mcp,
        auth: requireAuth(ctx),
        log: ctx.state.log,
        baseUrl: publicBaseUrl(ctx, deps.publicBaseUrl),
      });
      await answerMcpRequest(ctx, body, server);
    },
  }),
];

function toolName(params: unknown): string | undefined {
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name.slice(0, 100) : undefined;
}
