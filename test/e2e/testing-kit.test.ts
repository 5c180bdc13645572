import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineHostTool } from '../../src/tools.js';
import { regionQuestion } from '../support/questions.js';
import {
  createTestArbor,
  delayed,
  httpError,
  ScriptedModel,
  ScriptProblem,
  SessionEndedError,
  text,
  toolCall,
  toolCalls,
  WaitTimeoutError,
  type TestArbor,
} from '../../src/testing.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the testing kit', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      modelName: 'kit-model',
      waitTimeoutMs: 20_000,
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('records each request with its model name, messages, tools offered and the tool results of a parallel round', async () => {
    const instruction = 'Two todos at once';
    model.forInstruction(
      instruction,
      toolCalls(['todoWrite', { todos: [{ content: 'One', status: 'pending', activeForm: 'Doing one' }] }], ['listLoops', {}]),
      delayed(50, text('Both done.')),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });

    await arbor.waitUntilIdle(session);

    const [first, second] = model.requestsFor(instruction);
    expect(first).toMatchObject({ sessionId: session.id, model: 'kit-model', instruction, lastUserMessage: instruction, toolResults: [] });
    expect(first!.system.length).toBeGreaterThan(0);
    expect(first!.tools).toEqual(expect.arrayContaining(['todoWrite', 'listLoops', 'askUser']));
    expect(first!.toolSpecs.find((spec) => spec.name === 'todoWrite')?.parameters).toMatchObject({ type: 'object' });
    expect(second!.toolResults).toHaveLength(2);
    expect(second!.messages.filter((message) => message.role === 'tool')).toHaveLength(2);
  });

  it('fails the wait with the script that ran out, naming the request that found no step and the requests that used them', async () => {
    const instruction = 'A script one step short';
    model.forInstruction(instruction, toolCall('todoWrite', { todos: [] }));
    const session = await arbor.startSession({ profile: 'all', instruction });

    const failure = await arbor.waitUntilIdle(session).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ScriptProblem);
    expect((failure as Error).message).toMatch(
      /^Scripted model: request #\d+ \(model "kit-model", instruction "A script one step short", .*\) found no step left in the script for instruction "A script one step short": it has 1 step\(s\) and requests #\d+ used them\.$/,
    );
    // Thrown once: the next wait, of another session, is not failed by it.
    model.forInstruction('After the short script', text('Fine.'));
    const next = await arbor.startSession({ profile: 'all', instruction: 'After the short script' });
    expect((await arbor.waitUntilIdle(next)).last_message?.content).toBe('Fine.');
    expect(model.problems).toHaveLength(1);
  });

  it('fails a settle, as every helper, with a script that ran out', async () => {
    const instruction = 'A script that runs out while settling';
    model.forInstruction(instruction, toolCall('todoWrite', { todos: [] }));
    const session = await arbor.startSession({ profile: 'all', instruction });

    await expect(arbor.settle(session)).rejects.toThrow(/found no step left in the script for instruction "A script that runs out/);
    model.problems.length = 0;
  });

  it('refuses a script step that is not a model step when the script is made, saying which', () => {
    expect(() => new ScriptedModel([text('fine'), { content: 'not a step' } as never])).toThrow(
      /step 2 of the script is not a model step .*got \{"content":"not a step"\}/,
    );
  });

  it('fails a wait past its bound with what the session was doing', async () => {
    const instruction = 'Ask and wait';
    model.forInstruction(instruction, toolCall('askUser', { questions: [regionQuestion] }), text('Thanks.'));
    const session = await arbor.startSession({ profile: 'all', instruction });

    const failure = await arbor.waitUntilIdle(session, { timeoutMs: 1_500 }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(WaitTimeoutError);
    expect((failure as Error).message).toContain(`Session ${session.id} was not idle after 1500 ms.`);
    expect((failure as Error).message).toContain('It is waiting_for_user in turn 1');
    expect((failure as Error).message).toContain(`Waiting for the user: ${regionQuestion.question}`);
    await arbor.answerQuestions(session, { [regionQuestion.question]: 'Europe' });
    expect((await arbor.waitUntilIdle(session)).last_message?.content).toBe('Thanks.');
  });

  it('fails a wait for a session that ended meanwhile, saying how it ended', async () => {
    const instruction = 'Stopped while waited for';
    model.forInstruction(instruction, toolCall('wait', { seconds: 3_600, reason: 'an hour' }), text('Done.'));
    const session = await arbor.startSession({ profile: 'all', instruction });
    await arbor.settle(session);
    await session.stop();

    const failure = await arbor.waitUntilIdle(session).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(SessionEndedError);
    expect((failure as Error).message).toContain('Its workflow is CANCELLED.');
  });

  it('ends the turn with the endpoint’s refusal for an HTTP 400, without retrying it', async () => {
    const instruction = 'Refused by the endpoint';
    model.forInstruction(instruction, httpError(400, { message: 'Unsupported parameter' }));
    const session = await arbor.startSession({ profile: 'all', instruction });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.last_error).toContain('Unsupported parameter');
    expect(model.requestsFor(instruction)).toHaveLength(1);
  });

  it('settles a parent that a sub-agent wakes as it finishes, after the parent first looked still', async () => {
    const instruction = 'Start a slow helper';
    const task = 'Be slow, then report';
    model.forInstruction(
      instruction,
      toolCall('subAgent', { title: 'Slow', instruction: task, mode: 'async' }),
      text('Started.'),
      delayed(500, text('Read the report.')),
    );
    model.forInstruction(task, delayed(1_500, text('Reported.')));
    const session = await arbor.startSession({ profile: 'all', instruction });

    await arbor.settle(session);

    // The parent was idle while its sub-agent worked; settling covers the turn the sub-agent's notice started.
    const snapshot = await arbor.snapshot(session);
    expect(snapshot).toMatchObject({ status: 'idle', turn: 2, queued_messages: 0, children: [{ status: 'completed' }] });
    expect(snapshot.last_message?.content).toBe('Read the report.');
  });

  it('reads a session’s transcript and events without a query meeting a workflow task in flight', async () => {
    const instruction = 'Transcript and events';
    model.forInstruction(instruction, text('Here.'));
    const session = await arbor.startSession({ profile: 'all', instruction });
    await arbor.waitUntilIdle(session);

    const transcript = await arbor.transcript(session);
    const events = await arbor.events(session);

    expect(transcript.map((entry) => [entry.role, entry.content])).toEqual([
      ['user', instruction],
      ['assistant', 'Here.'],
    ]);
    expect(events.filter((event) => event.type === 'message').map((event) => event.type === 'message' && event.content)).toEqual([
      instruction,
      'Here.',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'status_changed', to: 'idle' });
  });

  it('answers a summary request itself, taking no step of the session’s script, and records it apart', async () => {
    const instruction = 'Compact me';
    // Steps other tests of this file left for their own instructions are not this session's.
    const leftByOthers = model.remainingSteps;
    model.forInstruction(instruction, text('First answer.'), text('Second answer.'), text('Third answer.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    await arbor.client.session(session.id).send('And again');
    await arbor.waitUntilIdle(session);
    const receipt = await arbor.client.session(session.id).compact();
    expect(receipt).toMatchObject({ outcome: 'summarized', entries: 1 });
    expect(model.summaryRequests.at(-1)).toMatchObject({ sessionId: session.id });
    expect(model.summaryRequests.at(-1)!.lastUserMessage).toContain('[assistant] First answer.');
    await arbor.client.session(session.id).send('One more');
    await arbor.waitUntilIdle(session);
    const last = model.requestsFor(instruction).at(-1)!;
    expect(last.system).toMatch(/## Summary of the earlier conversation\n\(scripted summary\) Conversation to summarize:/);
    expect(model.requestsFor(instruction)).toHaveLength(3);
    expect(model.remainingSteps).toBe(leftByOthers);
  });

  it('runs beside a second environment in the same process, each with its own server, worker and model', async () => {
    const other = await createTestArbor({
      model: new ScriptedModel([text('From the other model.')]),
      workflowBundlePath: inject('workflowBundlePath'),
    });
    try {
      const session = await other.startSession({ profile: 'all', instruction: 'Which model answers?' });
      expect((await other.waitUntilIdle(session)).last_message?.content).toBe('From the other model.');
      expect(model.requestsFor('Which model answers?')).toEqual([]);
      expect(other.taskQueue).not.toBe(arbor.taskQueue);
    } finally {
      await other.teardown();
    }
  });
});

describe('the testing kit with host tools that need approval', () => {
  const refunds: number[] = [];
  const refund = defineHostTool({
    name: 'refund',
    description: 'Refund an amount in euros.',
    input: z.object({ eur: z.number() }),
    needsApproval: ({ eur }) => eur > 100,
    run: async ({ eur }) => {
      refunds.push(eur);
      return `refunded ${eur} EUR`;
    },
  });
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model, tools: [refund], workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('offers the tools to the model, runs a call the test approves, and never runs one it denies', async () => {
    const instruction = 'Refund twice';
    model.forInstruction(
      instruction,
      toolCall('refund', { eur: 250 }),
      toolCall('refund', { eur: 300 }),
      (request) => text(`Results: ${JSON.stringify(request.toolResults)}`),
      text('unused'),
    );
    const session = await arbor.startSession({ profile: 'all', instruction });

    const [asked] = await arbor.waitForUser(session);
    expect(asked?.approval).toMatchObject({ tool_name: 'refund' });
    await arbor.approve(session, { toolName: 'refund' });
    await arbor.deny(session, { toolName: 'refund', reason: 'too much' });
    const snapshot = await arbor.waitUntilIdle(session);

    expect(model.requestsFor(instruction)[0]!.tools).toContain('refund');
    expect(refunds).toEqual([250]);
    expect(model.requestsFor(instruction)[1]!.toolResults).toEqual(['refunded 250 EUR']);
    expect(snapshot.last_message?.content).toContain('did not run');
    expect(model.requestsFor(instruction)[2]!.toolResults).toEqual([
      'Error: The user denied the call to refund, so it did not run. They said: "too much"',
    ]);
  });
});

describe('the testing kit on other servers', () => {
  it('runs sessions on a server the test already runs, given its address', async () => {
    const arbor = await createTestArbor({
      server: { address: inject('temporalAddress') },
      model: new ScriptedModel([text('On the dev server.')]),
    });
    try {
      const session = await arbor.startSession({ profile: 'all', instruction: 'Where am I?' });
      expect((await arbor.waitUntilIdle(session)).last_message?.content).toBe('On the dev server.');
      // Its visibility has Arbor's search attributes, which the time-skipping server lacks.
      const listed = await arbor.client.listSessions({ title: 'Where am I' });
      expect(listed.map((summary) => summary.session_id)).toContain(session.id);
    } finally {
      await arbor.teardown();
    }
  });

  it('starts a dev server of its own when asked, and stops it at teardown', async () => {
    const arbor = await createTestArbor({ server: 'dev', model: new ScriptedModel([text('On my own dev server.')]) });
    const address = arbor.env.connection.options.address;
    try {
      const session = await arbor.startSession({ profile: 'all', instruction: 'And now?' });
      expect((await arbor.waitUntilIdle(session)).last_message?.content).toBe('On my own dev server.');
    } finally {
      await arbor.teardown();
    }
    expect(address).not.toBe(inject('temporalAddress'));
    await expect(canConnect(address)).resolves.toBe(false);
  });
});

describe('the testing kit without its binaries', () => {
  it('refuses a test server path that cannot run, naming it', async () => {
    await expect(createTestArbor({ testServerPath: '/nonexistent/temporal-test-server' })).rejects.toThrow(
      /The time-skipping test server \/nonexistent\/temporal-test-server cannot run: .*Leave testServerPath out/,
    );
  });

  it('says every way it tried when no test server is found and installing is off', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'arbor-empty-cache-'));
    const script = `import { createTestArbor } from ${JSON.stringify(`${root}src/testing.ts`)};
      await createTestArbor({ installBinaries: false }).catch((error) => { console.error(error.message); process.exit(3); });`;
    try {
      const { code, stderr } = await runNode(script, { ARBOR_CACHE_DIR: cache, PATH: '/usr/bin:/bin', TEMPORAL_TEST_SERVER_PATH: '' });
      expect(code).toBe(3);
      expect(stderr).toContain('Could not find or install the Temporal time-skipping test server (temporal-test-server). Ways tried:');
      expect(stderr).toContain('$TEMPORAL_TEST_SERVER_PATH: not set');
      expect(stderr).toContain('not found on PATH');
      expect(stderr).toContain('skipped: installing is disabled');
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });
});

function runNode(script: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

function canConnect(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect(Number(port), host === 'localhost' ? '127.0.0.1' : host!);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
