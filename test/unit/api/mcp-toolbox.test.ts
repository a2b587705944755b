import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { McpCall, McpDeps } from '../../../api/mcp/deps.js';
import { defineTool, parseArguments, toolbox } from '../../../api/mcp/tool.js';
import { MCP_TOOLS } from '../../../api/mcp/tools/index.js';
import { NotFoundError } from '../../../shared/infra/errors.js';
import type { Logger } from '../../../shared/infra/logger.js';

// The toolbox's own rules, without IO: what tools/list shows, and how a tool's failure becomes a
// result. (Each tool against real services: test/integration/api/mcp-tools.test.ts.)

const deps = { pageSizes: { defaultLimit: 7, maxLimit: 70 } } as McpDeps;

function callOf() {
  const log = { error: vi.fn(), info: vi.fn() };
  return { call: { deps, log: log as unknown as Logger } as McpCall, log };
}

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Answers what it was given',
  annotations: { readOnlyHint: true },
  shape: () => ({ word: z.string({ error: 'must be a string' }).describe('The word') }),
  parse: (args) => parseArguments(z.object({ word: z.string({ error: 'must be a string' }) }), args),
  async call({ word }) {
    if (word === 'missing') throw new NotFoundError('Meeting not found');
    if (word === 'crash') throw new Error('duplicate key value violates unique constraint "secret_index"');
    if (word === 'db down')
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    if (word === 'text') return { text: 'plain words' };
    return { json: Buffer.from(JSON.stringify({ word })) };
  },
});

describe('tools/list', () => {
  // Unknown arguments are ignored, as REST ignores unknown members: no additionalProperties: false.
  it('describes the arguments as a JSON Schema object with the annotations and title', () => {
    const [listed] = toolbox([echo], deps).list;
    expect(listed).toEqual({
      name: 'echo',
      title: 'Echo',
      description: 'Answers what it was given',
      inputSchema: {
        type: 'object',
        properties: { word: { type: 'string', description: 'The word' } },
        required: ['word'],
      },
      annotations: { title: 'Echo', readOnlyHint: true },
    });
  });

  it('builds every tool of the server, with unique names and the deployment’s page sizes', () => {
    const tools = toolbox(MCP_TOOLS, deps).list;
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(MCP_TOOLS.length);
    const listMeetings = tools.find((tool) => tool.name === 'list_meetings');
    expect(listMeetings?.inputSchema.properties?.limit).toMatchObject({ default: 7, maximum: 70 });
    expect(() => toolbox([echo, echo], deps)).toThrow('two MCP tools share a name');
  });
});

describe('tools/call', () => {
  it('answers JSON bytes and text as one text block', async () => {
    const box = toolbox([echo], deps);
    expect(await box.call('echo', { word: 'hi' }, callOf().call)).toEqual({
      content: [{ type: 'text', text: '{"word":"hi"}' }],
    });
    expect(await box.call('echo', { word: 'text' }, callOf().call)).toEqual({
      content: [{ type: 'text', text: 'plain words' }],
    });
  });

  it('turns a refusal into an error result with the REST text, and logs it as information', async () => {
    const { call, log } = callOf();
    const box = toolbox([echo], deps);
    expect(await box.call('echo', { word: 'missing' }, call)).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Meeting not found' }],
    });
    expect(await box.call('echo', {}, call)).toMatchObject({
      isError: true,
      content: [{ text: 'word: must be a string' }],
    });
    expect(log.info).toHaveBeenCalledTimes(2);
    expect(log.error).not.toHaveBeenCalled();
  });

  it('never shows what went wrong inside: `Internal server error`, the details in the log', async () => {
    const { call, log } = callOf();
    const result = await toolbox([echo], deps).call('echo', { word: 'crash' }, call);
    expect(result).toEqual({ isError: true, content: [{ type: 'text', text: 'Internal server error' }] });
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ tool: 'echo', err: expect.any(Error) }),
      'MCP tool failed',
    );
  });

  it('says a database outage as REST does', async () => {
    const result = await toolbox([echo], deps).call('echo', { word: 'db down' }, callOf().call);
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Database unavailable; try again shortly' }],
    });
  });
});
