import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorAnswer } from '../middleware/errors.js';
import { parseInput } from '../middleware/validate.js';
import type { McpCall, McpDeps } from './deps.js';

/** What a tool answers: the REST route's JSON body, or a transcript as text. */
export type ToolAnswer = { json: unknown } | { text: string };

/**
 * One MCP tool. Its arguments are validated by the REST route's own schemas (`parse`), so a bad
 * argument is refused with the route's words; `shape` is what tools/list shows of them.
 */
export interface McpTool<Args> {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** The arguments as tools/list describes them (one JSON Schema object). */
  shape(deps: McpDeps): z.ZodRawShape;
  /** The arguments as the route validates its path, body and query; throws the route's 400. */
  parse(args: Record<string, unknown>, deps: McpDeps): Args;
  call(args: Args, call: McpCall): Promise<ToolAnswer>;
}

/** A tool whose argument types no longer matter to the caller: what the toolbox holds. */
// biome-ignore lint/suspicious/noExplicitAny: a list of tools of different argument types
export type AnyMcpTool = McpTool<any>;

export function defineTool<Args>(tool: McpTool<Args>): AnyMcpTool {
  return tool;
}

/** Arguments through a route's schema: its 400 text names the argument (`platform: must be one of …`). */
export function parseArguments<Schema extends z.ZodType>(schema: Schema, args: unknown): z.output<Schema> {
  return parseInput(schema, args, 'Arguments');
}

/** The tools of one deployment, their tools/list entries built once. */
export interface Toolbox {
  list: Tool[];
  has(name: string): boolean;
  /** Runs a tool; a refusal or failure is a result with `isError` and the REST route's error text. */
  call(name: string, args: Record<string, unknown> | undefined, call: McpCall): Promise<CallToolResult>;
}

export function toolbox(tools: readonly AnyMcpTool[], deps: McpDeps): Toolbox {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  if (byName.size !== tools.length) throw new Error('two MCP tools share a name');
  const list: Tool[] = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: argumentsJsonSchema(tool.shape(deps)),
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return {
    list,
    has: (name) => byName.has(name),
    async call(name, args, call) {
      const tool = byName.get(name);
      if (!tool) return toolError(`Unknown tool: ${name}`);
      try {
        return toolResult(await tool.call(tool.parse(args ?? {}, deps), call));
      } catch (caught) {
        const { status, message } = errorAnswer(caught);
        if (status >= 500) call.log.error({ err: caught, tool: name }, 'MCP tool failed');
        else call.log.info({ tool: name, status, error: message }, 'MCP tool refused');
        return toolError(message);
      }
    },
  };
}

function argumentsJsonSchema(shape: z.ZodRawShape): Tool['inputSchema'] {
  const schema = z.toJSONSchema(z.object(shape), { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return { ...schema, type: 'object' };
}

function toolResult(answer: ToolAnswer): CallToolResult {
  const text = 'text' in answer ? answer.text : jsonText(answer.json);
  return { content: [{ type: 'text', text }] };
}

/** A cached REST answer is already JSON bytes. */
function jsonText(json: unknown): string {
  return Buffer.isBuffer(json) ? json.toString('utf8') : JSON.stringify(json);
}

/** A refusal or failure: exactly the REST route's `error` text, as a tool result the model can read. */
export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}
