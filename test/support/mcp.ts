import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** How a client presents its key to /mcp. */
export type KeyHeader = 'x-api-key' | 'bearer';

export function keyHeaders(key: string | undefined, how: KeyHeader = 'x-api-key'): Record<string, string> {
  if (key === undefined) return {};
  return how === 'bearer' ? { Authorization: `Bearer ${key}` } : { 'X-API-Key': key };
}

/** The SDK's own client over its streamable HTTP transport, connected (initialized) to `${baseUrl}/mcp`. */
export async function connectMcp(
  baseUrl: string,
  key: string | undefined,
  how: KeyHeader = 'x-api-key',
): Promise<McpTestClient> {
  const client = new Client({ name: 'meetbot-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: keyHeaders(key, how) },
  });
  await client.connect(transport);
  return new McpTestClient(client);
}

/** A tool's answer as the tests read it. */
export interface ToolOutcome {
  isError: boolean;
  /** The first text block (the REST body's JSON, a transcript's text, or the error text). */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  json(): any;
}

export class McpTestClient {
  constructor(readonly client: Client) {}

  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
    const result = (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    const first = result.content[0];
    const text = first?.type === 'text' ? first.text : '';
    return { isError: result.isError === true, text, json: () => JSON.parse(text) };
  }

  /** A tool's JSON answer; fails with the tool's error text when it refused. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  async json(name: string, args: Record<string, unknown> = {}): Promise<any> {
    const outcome = await this.call(name, args);
    if (outcome.isError) throw new Error(`${name} refused: ${outcome.text}`);
    return outcome.json();
  }

  /** A tool's error text; fails when it did not refuse. */
  async error(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const outcome = await this.call(name, args);
    if (!outcome.isError) throw new Error(`${name} did not refuse: ${outcome.text}`);
    return outcome.text;
  }

  /** One resource's text. */
  async read(uri: string): Promise<{ mimeType: string | undefined; text: string }> {
    const { contents } = await this.client.readResource({ uri });
    const [content] = contents;
    if (!content || !('text' in content)) throw new Error(`${uri}: no text content`);
    return { mimeType: content.mimeType, text: content.text };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
