import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client.js';
import { createArborWorker, type ArborWorker } from '../../src/worker.js';
import { devServerSettings } from '../support/connection.js';
import { everythingBin, filesystemBin } from '../support/mcp-servers.js';
import { runCli } from '../support/processes.js';

const servers = { everything: { command: everythingBin, args: ['stdio'] } };

describe('MCP servers through the CLI', () => {
  it('runs a session whose in-process worker takes its MCP servers from ARBOR_MCP_SERVERS and calls one of their tools', async () => {
    const settings = devServerSettings();
    const result = await runCli(
      ['run', '/tool everything__get-sum {"a": 19, "b": 23}', '--model', 'demo', '--json'],
      { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue, ARBOR_MCP_SERVERS: JSON.stringify(servers) },
      90_000,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).answer).toMatch(/everything__get-sum answered: .*42/);
  });

  it("lists each configured server's state and tool count with doctor, a server that cannot start with why", async () => {
    const config = { mcpServers: { ...servers, broken: { command: '/nonexistent/mcp-server' } } };
    const result = await runCli(['doctor', '--json', '--no-install'], {
      TEMPORAL_ADDRESS: devServerSettings().address,
      ARBOR_MCP_SERVERS: JSON.stringify(config),
      ARBOR_CACHE_DIR: process.env.ARBOR_CACHE_DIR ?? '',
    });
    const report = JSON.parse(result.stdout);
    expect(report.mcp_servers).toEqual([
      expect.objectContaining({ name: 'everything', transport: 'stdio', state: 'ready', tool_count: expect.any(Number) }),
      expect.objectContaining({ name: 'broken', state: 'down', tool_count: 0, problem: expect.stringMatching(/ENOENT/) }),
    ]);
    expect(report.mcp_servers[0].tool_count).toBeGreaterThan(5);
  });

  it('stops arbor worker before it connects, with exit code 2, on an MCP configuration it cannot use', async () => {
    const result = await runCli(['worker'], { TEMPORAL_ADDRESS: '127.0.0.1:1', ARBOR_MCP_SERVERS: '{"bad name": {"command": "x"}}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/MCP server "bad name": a server name must be/);
  });

  describe('arbor tools', () => {
    const settings = devServerSettings();
    let worker: ArborWorker;
    let running: Promise<void>;

    beforeAll(async () => {
      worker = await createArborWorker({
        connection: settings,
        model: { defaultModel: 'demo', requestTimeoutMs: 10_000 },
        mcpServers: { files: { command: filesystemBin, args: ['/tmp'], needsApproval: true } },
        log: () => {},
      });
      running = worker.run();
    });

    afterAll(async () => {
      worker?.shutdown();
      await running;
    });

    it("lists a session's built-in and MCP tools, with each MCP tool's server, approval and destructive marks", async () => {
      const env = { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue };
      const client = await ArborClient.fromSettings(settings);
      const session = await client.startSession({ instruction: 'Hello', model: 'demo' });
      await session.waitUntilIdle({ timeoutMs: 30_000 });
      await client.close();
      const sessionId = session.id;

      const listed = await runCli(['tools', sessionId, '--json'], env);
      expect(listed.code, listed.stderr).toBe(0);
      const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] };
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('todoWrite')).toMatchObject({ source: 'built-in', needs_approval: false, deferral: null });
      // Read-only tools need no approval although the server asks for it; write_file is destructive by its annotations.
      expect(byName.get('files__read_text_file')).toMatchObject({
        source: 'mcp',
        mcp: { server: 'files', tool: 'read_text_file' },
        needs_approval: false,
        destructive: false,
      });
      expect(byName.get('files__write_file')).toMatchObject({ source: 'mcp', needs_approval: true, destructive: true });

      const table = await runCli(['tools', sessionId], env);
      expect(table.stdout).toMatch(/files__write_file\s+mcp files\/write_file\s+asks\s+yes/);
    });
  });
});
