import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';
import { everythingBin, filesystemBin, isAlive, startEverythingOverHttp } from '../support/mcp-servers.js';

async function until<T>(what: string, read: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('MCP servers as tool sources', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let folder: string;
  let http: Awaited<ReturnType<typeof startEverythingOverHttp>>;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'arbor-mcp-'));
    await writeFile(join(folder, 'notes.txt'), 'Ada wrote the first program.\n');
    http = await startEverythingOverHttp();
    arbor = await createTestArbor({
      model,
      // The tests' dev server: nothing here skips time, and a query never meets the Java test server's lock.
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      mcpServers: {
        // A restart waits long enough for a call to find the server down.
        everything: { command: everythingBin, args: ['stdio'], restartDelayMs: { initial: 5_000 } },
        files: { command: filesystemBin, args: [folder], tools: { write_file: { needsApproval: true } } },
        web: { url: http.url, headers: { 'X-Test': '${HOME}' }, restartDelayMs: { initial: 500, max: 500 } },
        broken: { command: join(folder, 'no-such-server'), restartDelayMs: { initial: 60_000 } },
        // Written by a test once the worker runs: a server that comes up late changes the catalogue.
        late: { command: join(folder, 'late-server.sh'), restartDelayMs: { initial: 200, max: 200 } },
      },
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
    await http?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("offers each server's tools as <server>__<tool> with the server's schema, and the model reads text, structured content and described images", async () => {
    const instruction = 'Use the everything server';
    model.forInstruction(
      instruction,
      toolCall('everything__echo', { message: 'hello over stdio' }),
      toolCall('everything__get-structured-content', { location: 'Chicago' }),
      toolCall('everything__get-tiny-image', {}),
      text('Done.'),
    );
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(instruction);
    const echo = requests[0]!.toolSpecs.find((spec) => spec.name === 'everything__echo');
    expect(echo).toMatchObject({ description: 'Echoes back the input string', parameters: { type: 'object', required: ['message'] } });
    expect(requests[0]!.tools).toEqual(expect.arrayContaining(['files__read_text_file', 'web__echo']));
    expect(requests[1]!.toolResults).toEqual(['Echo: hello over stdio']);
    expect(requests[2]!.toolResults[0]).toMatchObject({ temperature: expect.any(Number) });
    expect(requests[3]!.toolResults[0]).toMatch(/\[image: image\/png, [\d,]+ bytes, not shown\]/);
  });

  it('names an MCP call by its server and tool in the session events and in the summary of its activity', async () => {
    const instruction = 'Echo once, named';
    model.forInstruction(instruction, toolCall('everything__echo', { message: 'named' }), text('Done.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const calls = (await arbor.events(session)).filter((event) => event.type === 'tool_call');
    expect(calls).toEqual([expect.objectContaining({ name: 'everything__echo', mcp: { server: 'everything', tool: 'echo' } })]);
    const history = await arbor.env.client.workflow.getHandle(session.id).fetchHistory();
    const scheduled = history.events!.find(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'tool:everything__echo',
    );
    expect(Buffer.from(scheduled!.userMetadata!.summary!.data!).toString()).toBe(
      JSON.stringify('MCP everything: echo: {"message":"named"}'),
    );
  });

  it('calls a Streamable HTTP server on loopback, and a filesystem server whose refusals are tool errors', async () => {
    const instruction = 'Use the web and files servers';
    model.forInstruction(
      instruction,
      toolCall('web__get-sum', { a: 2, b: 40 }),
      toolCall('files__read_text_file', { path: join(folder, 'notes.txt') }),
      toolCall('files__read_text_file', { path: '/etc/hostname' }),
      text('Done.'),
    );
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const requests = model.requestsFor(instruction);
    expect(String(requests[1]!.toolResults[0])).toContain('42');
    expect(requests[2]!.toolResults).toEqual(['Ada wrote the first program.\n']);
    expect(String(requests[3]!.toolResults[0])).toMatch(/^Error: Tool files__read_text_file failed: .*(denied|outside)/i);
  });

  it('asks before a call of a tool the configuration marks as needing approval, and runs it once approved', async () => {
    const instruction = 'Write a file through MCP';
    const target = join(folder, 'written.txt');
    model.forInstruction(instruction, toolCall('files__write_file', { path: target, content: 'written by MCP' }), text('Written.'));
    const session = await arbor.startSession({ instruction });
    await arbor.approve(session, { toolName: 'files__write_file' });
    await arbor.waitUntilIdle(session);

    expect(await readFile(target, 'utf8')).toBe('written by MCP');
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatch(/Successfully wrote/);
  });

  it('answers a call to a killed stdio server with a tool error saying it is down, and calls it again once restarted', async () => {
    const instruction = 'Echo across a crash';
    model.forInstruction(
      instruction,
      toolCall('everything__echo', { message: 'after the crash' }),
      text('It is down.'),
      toolCall('everything__echo', { message: 'after the restart' }),
      text('It is back.'),
    );
    const before = arbor.mcpStatus().find((server) => server.name === 'everything')!;
    expect(before.state).toBe('ready');
    process.kill(before.pid!, 'SIGKILL');
    await until('the server is down', () => arbor.mcpStatus().find((server) => server.name === 'everything')?.state === 'down');

    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatch(
      /^Error: Tool everything__echo failed: MCP server everything is down \(it exited.*\); the worker restarts it/,
    );

    const after = await until('the server is ready again', () =>
      arbor.mcpStatus().find((server) => server.name === 'everything' && server.state === 'ready' && server.restarts === 1),
    );
    expect(after.pid).not.toBe(before.pid);
    await session.send('Try again');
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[3]!.toolResults).toEqual(['Echo: after the restart']);
  });

  it('answers a call to a Streamable HTTP server that went away with a tool error, and reconnects once it is back', async () => {
    const instruction = 'Echo across an HTTP outage';
    model.forInstruction(
      instruction,
      toolCall('web__echo', { message: 'while away' }),
      text('It is away.'),
      toolCall('web__echo', { message: 'back again' }),
      text('It is back.'),
    );
    await http.stop();
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatch(/^Error: Tool web__echo failed: MCP server web is down \(/);

    http = await startEverythingOverHttp(http.port);
    await until('the HTTP server is reached again', () =>
      arbor.mcpStatus().find((server) => server.name === 'web' && server.state === 'ready' && server.restarts > 0),
    );
    await session.send('Try again');
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[3]!.toolResults).toEqual(['Echo: back again']);
  });

  it('keeps a server that never starts out of the catalogue, says why in its status, and the session goes on', async () => {
    const broken = arbor.mcpStatus().find((server) => server.name === 'broken')!;
    expect(broken).toMatchObject({ state: 'down', tool_count: 0, problem: expect.stringMatching(/could not be started: .*ENOENT/) });
    const instruction = 'Call the broken server';
    model.forInstruction(instruction, toolCall('broken__anything', {}), text('No such tool.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[1]!.toolResults[0]).toMatch(/^Error: Unknown tool "broken__anything"/);
  });

  it('offers the tools of a server that came up late to a running session once it continues as new, with a notice', async () => {
    const instruction = 'Before the late server';
    model.forInstruction(instruction, text('Nothing to call yet.'));
    const session = await arbor.startSession({ instruction, history_limit: 100 });
    await arbor.waitUntilIdle(session);
    expect(model.requestsFor(instruction)[0]!.tools).not.toContain('late__echo');

    await writeFile(join(folder, 'late-server.sh'), `#!/bin/sh\nexec ${everythingBin} stdio\n`);
    await chmod(join(folder, 'late-server.sh'), 0o755);
    await until('the late server is ready', () => arbor.mcpStatus().find((server) => server.name === 'late')?.state === 'ready');

    const workflow = arbor.env.client.workflow.getHandle(session.id);
    const firstRun = (await workflow.describe()).runId;
    for (let turn = 1; (await workflow.describe()).runId === firstRun; turn++) {
      if (turn > 30) throw new Error('the session did not continue as new');
      model.forInstruction(instruction, text(`Turn ${turn}.`));
      await session.send(`Turn ${turn}`);
      await arbor.waitUntilIdle(session);
    }
    // With the late server's tools the catalogue passes ToolSearch's 40 tools, so the new run defers them: the model
    // loads the tool first.
    model.forInstruction(
      instruction,
      toolCall('ToolSearch', { query: 'select:late__echo' }),
      toolCall('late__echo', { message: 'late but here' }),
      text('Called.'),
    );
    await session.send('Call the late server');
    await arbor.waitUntilIdle(session);
    const [loaded, called] = model.requestsFor(instruction).slice(-2);
    // The server that never starts is still being retried: ToolSearch names it as loading.
    expect(loaded!.toolResults[0]).toMatchObject({ matches: ['late__echo'], pending_mcp_servers: ['broken'] });
    expect(called!.toolResults).toEqual(['Echo: late but here']);
    const notices = (await session.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
    expect(notices.find((notice) => notice.startsWith('The host tools changed'))).toMatch(/added .*late__echo/);
  });

  it('closes the stdio servers as the worker shuts down, leaving no process behind', async () => {
    const pids = arbor.mcpStatus().flatMap((server) => (server.pid === undefined ? [] : [server.pid]));
    expect(pids).toHaveLength(3);
    await arbor.teardown();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(arbor.mcpStatus().every((server) => server.state === 'closed')).toBe(true);
  });
});
