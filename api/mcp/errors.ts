import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../shared/infra/logger.js';
import { errorAnswer } from '../middleware/errors.js';

/** MCP's code for a resource that does not exist (the spec's resources page). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error whose message is sent as is. The SDK answers a request whose handler threw with
 * the error's `code` and `message`; its own McpError would prefix the message with `MCP error <code>:`.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A failed resource read as a JSON-RPC error with the REST answer's text (`Meeting not found`); a
 * failure of ours is logged and says only `Internal server error`, as REST does.
 */
export function jsonRpcErrorOf(caught: unknown, log: Logger): JsonRpcError {
  if (caught instanceof JsonRpcError) return caught;
  const { status, message } = errorAnswer(caught);
  if (status >= 500) log.error({ err: caught }, 'MCP request failed');
  const code =
    status === 404 ? RESOURCE_NOT_FOUND : status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new JsonRpcError(code, message);
}
