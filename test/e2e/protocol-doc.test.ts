/**
 * docs/protocol.md, for real (issue 22, item 2): every JSON example of the page is sent by name, as another language's
 * client would send it, to a session on the dev server, and what comes back is checked against the result the page
 * shows: the same values where they cannot vary, the same keys and types where they can (ids, times).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import * as messages from '../../src/shared/messages.js';
import { sessionWorkflowType } from '../../src/shared/session.js';
import { temporalOk } from '../support/temporal-cli.js';
import { waitUntil } from '../support/wait.js';
import { inProcessDemoWorker } from '../support/in-process-demo-worker.js';

interface Example {
  kind?: string;
  input?: unknown;
  result?: unknown;
  commands: string[];
}

/** The page's examples by section: `### \`name\` — kind` headings, and the `##` sections before them. */
async function readExamples(): Promise<Map<string, Example>> {
  const text = await readFile(fileURLToPath(new URL('../../docs/protocol.md', import.meta.url)), 'utf8');
  const examples = new Map<string, Example>();
  let current: Example | undefined;
  const blocks = /^(#{2,3}) (.+)$|^```(json input|json result|sh)\n([\s\S]*?)^```$/gm;
  for (const match of text.matchAll(blocks)) {
    if (match[1]) {
      const named = /^`(\w+)` — (\w+)/.exec(match[2]!);
      current = { commands: [], ...(named ? { kind: named[2] } : {}) };
      examples.set(named ? named[1]! : match[2]!, current);
    } else if (current && match[3] === 'sh') {
      current.commands.push(match[4]!.replace(/\\\n\s*/g, ''));
    } else if (current) {
      current[match[3] === 'json input' ? 'input' : 'result'] = JSON.parse(match[4]!);
    }
  }
  return examples;
}

/** The same keys (documented ones at least, or exactly with `exactKeys`) and JSON types, all the way down. */
function expectShape(actual: unknown, documented: unknown, path: string, exactKeys = false): void {
  if (documented === null || typeof documented !== 'object') {
    expect(actual === null ? 'null' : typeof actual, path).toBe(documented === null ? 'null' : typeof documented);
    return;
  }
  if (Array.isArray(documented)) {
    expect(Array.isArray(actual), `${path} is a list`).toBe(true);
    if (documented.length > 0 && (actual as unknown[]).length > 0) expectShape((actual as unknown[])[0], documented[0], `${path}[0]`);
    return;
  }
  expect(typeof actual === 'object' && actual !== null && !Array.isArray(actual), `${path} is an object`).toBe(true);
  const keys = Object.keys(actual as object);
  if (exactKeys) expect(keys.sort(), `${path}: the keys documented`).toEqual(Object.keys(documented).sort());
  for (const [key, value] of Object.entries(documented)) {
    expect(keys, `${path}.${key}`).toContain(key);
    expectShape((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
  }
}

describe('the wire protocol as docs/protocol.md documents it', () => {
  const demo = inProcessDemoWorker();
  let examples: Map<string, Example>;

  beforeAll(async () => {
    examples = await readExamples();
  });

  const example = (name: string): Example => {
    const found = examples.get(name);
    if (!found) throw new Error(`docs/protocol.md has no section for ${name}`);
    return found;
  };

  it('documents every signal, query and update the workflows define, each as what it is', () => {
    const defined = Object.values(messages).map((definition) => [definition.name, definition.type] as const);
    expect(defined.length).toBeGreaterThanOrEqual(14);
    for (const [name, type] of defined) expect(example(name).kind, name).toBe(type);
  });

  it('answers each documented example as the page says, from the session start to the memory store', async () => {
    const id = `picnic-${randomUUID()}`;
    const start = example('Starting a session');
    // The documented command, as a user would type it, on this test's task queue and with its own workflow id.
    const command = start.commands.find((line) => line.startsWith('temporal workflow start'))!;
    expect(inputOf(command)).toEqual(start.input);
    await temporalOk(documented(command, id, demo.settings.taskQueue));
    const session = new SessionHandle(id, demo.arbor.temporal);
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const workflow = demo.arbor.temporal.workflow.getHandle(id);

    const snapshot = await workflow.query('snapshot');
    expectShape(snapshot, example('snapshot').result, 'snapshot', true);
    expect(snapshot).toMatchObject({ title: 'Picnic', status: 'idle', model: 'demo', session_id: id, root_session_id: id });

    const events = await workflow.query('events', example('events').input);
    expectShape(events, example('events').result, 'events', true);
    expect((events as { events: unknown[] }).events).toHaveLength(2);
    expectShape(
      await workflow.query('transcriptPage', example('transcriptPage').input),
      example('transcriptPage').result,
      'transcriptPage',
      true,
    );
    expectShape(await workflow.query('transcript', example('transcript').input), example('transcript').result, 'transcript');
    expect(await workflow.query('hostToolCatalogue')).toEqual(example('hostToolCatalogue').result);
    expectShape(await workflow.query('sessionTools'), example('sessionTools').result, 'sessionTools', true);

    // sendMessage, then the documented recipe: the turn is done once the status is settled and the id handled.
    expect(await workflow.executeUpdate('sendMessage', { args: [example('sendMessage').input] })).toEqual(example('sendMessage').result);
    const messageId = (example('sendMessage').input as { id: string }).id;
    await waitUntil(async () => {
      const { status } = await workflow.query<{ status: string }>('snapshot');
      return status !== 'running' && status !== 'waiting_for_user' && (await workflow.query('messageState', messageId)) === 'handled';
    }, 60_000);
    expect(await workflow.query('messageState', example('messageState').input)).toEqual(example('messageState').result);
    // The documented update command, through the Temporal CLI: the same id again is delivered once.
    const update = example('sendMessage').commands[0]!;
    expect(inputOf(update)).toEqual(example('sendMessage').input);
    const updated = await temporalOk([...documented(update, id, demo.settings.taskQueue), '--output', 'json']);
    expect(JSON.parse(updated).result).toEqual({ message_id: messageId, state: 'handled' });

    // userMessage, whose text asks the demo model a question; then answerQuestions with the documented answers.
    await workflow.signal('userMessage', example('userMessage').input);
    await waitUntil(
      async () => (await workflow.query<{ pending_questions: unknown[] }>('snapshot')).pending_questions.length === 1,
      60_000,
    );
    const [pending] = (await workflow.query<{ pending_questions: { question_set_id: string }[] }>('snapshot')).pending_questions;
    const answers = example('answerQuestions');
    const receipt = await workflow.executeUpdate('answerQuestions', {
      args: [{ ...(answers.input as object), question_set_id: pending!.question_set_id }],
    });
    expect(receipt).toEqual({ ...(answers.result as object), question_set_id: pending!.question_set_id, session_id: id });
    await session.waitUntilIdle({ messageId: (example('userMessage').input as { id: string }).id, timeoutMs: 60_000 });

    // The internal messages, as documented, change nothing they should not.
    expect(await workflow.executeUpdate('taskBoard', { args: [{ ...(example('taskBoard').input as object), session_id: id }] })).toEqual(
      example('taskBoard').result,
    );
    const boardBatch = example('taskBoardWrites').input as { writes: { request: object }[] };
    const boardWrites = { writes: boardBatch.writes.map((write) => ({ ...write, request: { ...write.request, session_id: id } })) };
    expect(await workflow.executeUpdate('taskBoardWrites', { args: [boardWrites] })).toEqual(example('taskBoardWrites').result);
    expect(await workflow.executeUpdate('taskBoardWrites', { args: [boardWrites] })).toEqual(example('taskBoardWrites').result);
    await workflow.signal('treeQuestions', example('treeQuestions').input);
    await workflow.signal('subAgentFinished', example('subAgentFinished').input);
    const after = await workflow.query<{ status: string; children: unknown[]; tasks: unknown[] }>('snapshot');
    expect(after).toMatchObject({
      status: 'idle',
      children: [],
      tasks: [
        { id: '1', subject: 'Buy bread' },
        { id: '2', subject: 'Buy cheese' },
      ],
    });

    // The memory store, started as documented for an owner of this test's own.
    const owner = `alice-${randomUUID().slice(0, 8)}`;
    const storeInput = example('The memory store').input as { owner: string };
    expect(storeInput.owner).toBe('alice');
    const store = await demo.arbor.temporal.workflow.start('memoryStoreWorkflow', {
      workflowId: `arbor-memory-${owner}`,
      taskQueue: demo.settings.taskQueue,
      args: [{ ...storeInput, owner }],
    });
    expect(await store.executeUpdate('memoryWrite', { args: [example('memoryWrite').input] })).toEqual(example('memoryWrite').result);
    const memoryBatch = example('memoryWrites').input;
    expect(await store.executeUpdate('memoryWrites', { args: [memoryBatch] })).toEqual(example('memoryWrites').result);
    expect(await store.executeUpdate('memoryWrites', { args: [memoryBatch] })).toEqual(example('memoryWrites').result);
    const found = await store.query('memoryRead', example('memoryRead').input);
    expectShape(found, example('memoryRead').result, 'memoryRead', true);
    expect(found).toMatchObject({ results: [{ memory_id: 'mem-1', content: 'Alice is vegetarian.', session_id: 'picnic' }] });

    // executePlan, as documented, on a session started in Plan mode; the picnic, in Execute mode, refuses it.
    const planned = await demo.arbor.temporal.workflow.start(sessionWorkflowType, {
      workflowId: `plan-${randomUUID()}`,
      taskQueue: demo.settings.taskQueue,
      args: [{ instruction: 'Plan a picnic for four people', work_mode: 'plan' }],
    });
    await new SessionHandle(planned.workflowId, demo.arbor.temporal).waitUntilIdle({ timeoutMs: 60_000 });
    expect(await planned.executeUpdate('executePlan', { args: [example('executePlan').input] })).toEqual(example('executePlan').result);
    await expect(workflow.executeUpdate('executePlan', { args: [example('executePlan').input] })).rejects.toThrow();
    await new SessionHandle(planned.workflowId, demo.arbor.temporal).stop();

    const history = await workflow.fetchHistory();
    expect(history.events?.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    await session.stop();
    await store.terminate('test over');
  }, 180_000);
});

/** A documented one-line command split into its words, quotes removed (as a shell would). */
function splitCommand(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

/** The arguments of a documented `temporal` command, for this test's workflow id and task queue. */
function documented(line: string, workflowId: string, taskQueue: string): string[] {
  const words = splitCommand(line);
  expect(words[0]).toBe('temporal');
  return words.slice(1).map((word, index, all) => {
    if (all[index - 1] === '--workflow-id') return workflowId;
    if (all[index - 1] === '--task-queue') return taskQueue;
    return word;
  });
}

/** The JSON a documented command sends as --input. */
function inputOf(line: string): unknown {
  const words = splitCommand(line);
  return JSON.parse(words[words.indexOf('--input') + 1]!);
}
