// An MCP server over stdio, on the official SDK, whose tool list grows: calling `grow` registers `grown`, and the SDK
// then sends `notifications/tools/list_changed`. The reference servers send that notification only to clients with
// capabilities Arbor does not declare, so this is how a test makes a server change its tools while it runs.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'growing', version: '1.0.0' });
server.registerTool('grow', { description: 'Adds the tool grown to this server.', inputSchema: {} }, async () => {
  server.registerTool('grown', { description: 'Says it grew.', inputSchema: { word: z.string() } }, async ({ word }) => ({
    content: [{ type: 'text', text: `grown: ${word}` }],
  }));
  return { content: [{ type: 'text', text: 'The tool grown was added.' }] };
});
await server.connect(new StdioServerTransport());
