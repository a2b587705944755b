import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpCall } from './deps.js';
import { JsonRpcError } from './errors.js';
import { registerMeetingResources } from './resources.js';
import type { Toolbox } from './tool.js';

const INSTRUCTIONS = [
  'Meetbot sends transcription bots into Google Meet and Microsoft Teams meetings and keeps their transcripts.',
  'To join a meeting from its link: parse_meeting_link, then send_bot with what it returned.',
  'A bot must be admitted by someone in the meeting; get_meeting shows its status (requested, joining, awaiting_admission, active, completed, failed).',
  'While it is active, get_transcript returns the words so far (they may still change); speak and send_chat_message act in the meeting; stop_bot makes it leave.',
  'list_meetings pages through every meeting; resources meeting://{id} and transcript://{id} read one.',
  'search finds words or phrases across every transcript and meeting name, participants and notes, best first.',
].join(' ');

/**
 * The MCP server of one request, for the key's user (stateless: each POST /mcp gets its own).
 * Resources go through McpServer; tools are served by our own tools/list and tools/call handlers on
 * the underlying Server (the SDK's documented way for custom handlers), so that their arguments are
 * validated by the REST routes' schemas and refused with the routes' words, not the SDK's.
 */
export function mcpServerFor(tools: Toolbox, call: McpCall): McpServer {
  const server = new McpServer(
    { name: 'meetbot', title: 'Meetbot', version: '1.0.0' },
    { instructions: INSTRUCTIONS },
  );
  registerMeetingResources(server, call);
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (!tools.has(name)) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return tools.call(name, args, call);
  });
  return server;
}
