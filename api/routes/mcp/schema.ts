import { z } from 'zod';

/**
 * POST /mcp's body: one JSON-RPC 2.0 message (the SDK's transport checks the rest of it). A batch
 * (an array) is refused: MCP dropped batching in its 2025-06-18 revision, and a batch of calls in one
 * request would count once against the per-key request rate.
 */
export const mcpRequest = z
  .object(
    {
      jsonrpc: z.literal('2.0', { error: 'must be "2.0"' }),
      method: z.string({ error: 'must be a string' }).optional(),
    },
    { error: 'must be one JSON-RPC message (an object; batches are not accepted)' },
  )
  .loose()
  .meta({
    id: 'McpRequest',
    description:
      'One JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, resources/list, resources/read, …): see docs/mcp.md',
  });
