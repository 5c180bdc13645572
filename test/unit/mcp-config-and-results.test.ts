import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMcpServers, McpConfigError, mcpServersFromEnv, resolveHeaders } from '../../src/mcp/config.js';
import { mcpToolEntries, mcpToolName } from '../../src/mcp/tool-entries.js';
import { mcpResultText } from '../../src/mcp/tool-result.js';
import { hostToolNamePattern } from '../../src/shared/host-tools.js';

describe('MCP server configuration', () => {
  it('reads ARBOR_MCP_SERVERS as inline JSON, or as a YAML file whose mcpServers field holds the servers', async () => {
    expect(mcpServersFromEnv({ ARBOR_MCP_SERVERS: '{"files": {"command": "npx", "args": ["x"]}}' })).toEqual({
      files: { command: 'npx', args: ['x'] },
    });
    const folder = await mkdtemp(join(tmpdir(), 'arbor-mcp-config-'));
    try {
      const file = join(folder, 'mcp.yaml');
      await writeFile(
        file,
        'mcpServers:\n  web:\n    url: http://127.0.0.1:3001/mcp\n    headers:\n      Authorization: Bearer ${TOKEN}\n',
      );
      expect(mcpServersFromEnv({ ARBOR_MCP_SERVERS: file, TOKEN: 't' })).toEqual({
        web: { url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    expect(mcpServersFromEnv({})).toEqual({});
  });

  it.each([
    ['a bad server name', { 'my server': { command: 'x' } }, /MCP server "my server": a server name must be/],
    ['neither a command nor a URL', { s: { args: ['x'] } }, /MCP server "s": .*either `command` \(stdio\) or `url`/],
    ['an unknown field', { s: { command: 'x', arguments: [] } }, /MCP server "s":/],
    [
      'a header naming an unset variable',
      { s: { url: 'http://h/mcp', headers: { A: '${NOPE_UNSET}' } } },
      /header A names NOPE_UNSET, which is not set/,
    ],
  ])('refuses %s with an McpConfigError naming the server', (_what, config, message) => {
    expect(() => checkMcpServers(config, {})).toThrow(McpConfigError);
    expect(() => checkMcpServers(config, {})).toThrow(message);
  });

  it("takes header values from the worker's environment", () => {
    expect(resolveHeaders('s', { Authorization: 'Bearer ${TOKEN}', Plain: 'x' }, { TOKEN: 'secret' })).toEqual({
      Authorization: 'Bearer secret',
      Plain: 'x',
    });
  });
});

describe('MCP tools as catalogue entries', () => {
  it('names a tool <server>__<tool>, making any name fit the OpenAI rule and two alike distinct', () => {
    expect(mcpToolName('files', 'read_file')).toBe('files__read_file');
    expect(mcpToolName('web', 'search.query/v2')).toBe('web__search_query_v2');
    const long = mcpToolName('server', 'x'.repeat(100));
    expect(long).toMatch(hostToolNamePattern);
    expect(long).toHaveLength(64);
    const taken = new Set(['web__a_b']);
    expect(mcpToolName('web', 'a.b', taken)).not.toBe('web__a_b');
  });

  it('takes approval and destructive from the settings, else from the annotations', () => {
    const tools = [
      { name: 'read', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } },
      { name: 'wipe', description: 'Wipes.', inputSchema: { type: 'object' as const }, annotations: { destructiveHint: true } },
      { name: 'send', description: 'Sends.', inputSchema: { type: 'object' as const } },
    ];
    const entries = mcpToolEntries('s', { command: 'x', needsApproval: true, tools: { send: { needsApproval: false } } }, tools, new Set());
    expect(
      entries.map(({ name, needs_approval, destructive, retry, mcp }) => ({
        name,
        needs_approval,
        destructive,
        attempts: retry.maximum_attempts,
        mcp,
      })),
    ).toEqual([
      { name: 's__read', needs_approval: false, destructive: undefined, attempts: 3, mcp: { server: 's', tool: 'read' } },
      { name: 's__wipe', needs_approval: true, destructive: true, attempts: 1, mcp: { server: 's', tool: 'wipe' } },
      { name: 's__send', needs_approval: false, destructive: undefined, attempts: 1, mcp: { server: 's', tool: 'send' } },
    ]);
    expect(entries[0]!.description).toBe('The tool read of MCP server s.');
  });
});

describe('MCP results as the text the model reads', () => {
  it('keeps text, adds structured content unless a text part carries it, and describes images, audio and resources', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'audio', data: 'AAAAAA==', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'file:///b.txt', mimeType: 'text/plain', text: 'bee' } },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAAAAAA' } },
        ],
        structuredContent: { ok: true },
      }),
    ).toBe(
      [
        'Here:',
        '[image: image/png, 3 bytes, not shown]',
        '[audio: audio/wav, 4 bytes, not shown]',
        '[resource link: file:///a.txt (a), text/plain]',
        '[resource: file:///b.txt, text/plain, 3 characters]\nbee',
        '[resource: file:///c.bin, 6 bytes, not shown]',
        '{"ok":true}',
      ].join('\n'),
    );
    expect(mcpResultText({ content: [{ type: 'text', text: '{ "ok": true }' }], structuredContent: { ok: true } })).toBe('{ "ok": true }');
    expect(mcpResultText({ content: [{ type: 'text', text: 'hi' }], structuredContent: { content: 'hi' } })).toBe('hi');
  });
});
