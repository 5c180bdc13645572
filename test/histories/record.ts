/**
 * Re-records the committed histories of today's session type (and of the memory store) that the replay test runs
 * against today's workflow code, into `test/histories/<workflow type>/`:
 *   npx tsx test/histories/record.ts [name ...]
 * The `sessionWorkflow` and `arborSession` folders hold histories of the types sessions started as before today's:
 * they are never re-recorded, since those types' code must go on replaying them. The one exception is what this file
 * records into them, `continues-as-new-as-v2`: a session of that type whose first run continues as new as today's.
 * Run it only when a workflow change is meant to break running sessions (and then give the workflow a new name or
 * guard the change with patched()): the point of the committed files is that old histories keep replaying.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities/index.js';
import { SessionHandle } from '../../src/client/session-handle.js';
import { legacySessionWorkflowType, previousSessionWorkflowType, sessionWorkflowType, type SessionInput } from '../../src/shared/session.js';
import { costUsdKey, forkedFromKey, parentSessionIdKey, rootSessionIdKey, statusKey, titleKey, totalTokensKey } from '../../src/shared/search-attributes.js';
import { locateBinaryPath } from '../../src/temporal/binaries.js';
import { workflowSourceWorkerOptions } from '../../src/worker/workflow-code.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { call, ScriptedModel, toolResults } from '../support/scripted-model.js';
import { memoryStoreId, memoryStoreWorkflowType } from '../../src/shared/tools/memory.js';
import { sendMessageUpdate, userMessageSignal } from '../../src/shared/messages.js';
import { z } from 'zod';
import { defineHostTool, defineRemoteTool, type ToolDefinition } from '../../src/tools.js';
import { buildCatalogue } from '../../src/tools/catalogue.js';
import { hostToolActivities } from '../../src/tools/activities.js';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { MemoryWriteCall } from '../../src/activities/memory.js';
import { createMemoryAccess } from '../../src/client/access/memory.js';
import { createAutomations } from '../../src/client/access/automations.js';
import { identityAtStart } from '../../src/client/start-with-identity.js';
import { defaultTitle } from '../../src/shared/titles.js';

const fake = await new FakeOpenAI().start();
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: await locateBinaryPath('cli') }, searchAttributes: [rootSessionIdKey, parentSessionIdKey, statusKey, titleKey, totalTokensKey, costUsdKey, forkedFromKey] },
});

async function writeHistory(workflowType: string, name: string, json: string) {
  const folder = new URL(`./${workflowType}/`, import.meta.url);
  await mkdir(folder, { recursive: true });
  await writeFile(fileURLToPath(new URL(`${name}.json`, folder)), `${json}\n`);
}

/** The first run of a workflow, walking back from its current run. */
async function firstRunId(workflowId: string): Promise<string> {
  let runId = (await env.client.workflow.getHandle(workflowId).describe()).runId;
  for (;;) {
    const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return runId;
    runId = previous;
  }
}

/** Names given on the command line are (re-)recorded; none given records all. */
const wanted = process.argv.slice(2);

/**
 * With `run: 'first'`, the history written is the session's first run (one that continued as new), not its last;
 * with `of`, that of the workflow `of` names (a sub-agent, say) instead of the session's; with `type`, the session
 * starts as that workflow type (default today's), and the history goes into its folder; `activities` replace Arbor's.
 */
async function record(
  name: string,
  model: string,
  input: SessionInput,
  steps: (session: SessionHandle) => Promise<void>,
  options: {
    run?: 'first';
    of?: (session: SessionHandle) => Promise<string>;
    type?: string;
    tools?: ToolDefinition[];
    /** Activities replaced by the recording's own (faults). */
    activities?: Record<string, (...args: never[]) => Promise<unknown>>;
    /** Start with the identity search attributes, as the SDK does since later-changes-asked-once-at-run-start. */
    identity?: boolean;
    /** A skills folder for the Skill tool. */
    skillsDir?: string;
  } = {},
) {
  const type = options.type ?? sessionWorkflowType;
  if (wanted.length > 0 && !wanted.includes(name)) return;
  const taskQueue = `record-${name}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...workflowSourceWorkerOptions(),
    activities: {
      ...createActivities({
        client: env.client,
        model: { apiKey: 'sk-record', baseURL: fake.baseURL, defaultModel: model, requestTimeoutMs: 5_000 },
        loopLimits: { min_interval_seconds: 1 },
        webFetch: {},
        ...(options.tools ? { hostTools: buildCatalogue(options.tools) } : {}),
        skillsDir: options.skillsDir ?? false,
      }),
      ...hostToolActivities(options.tools ?? [], taskQueue).get(taskQueue),
      ...options.activities,
    },
  });
  await worker.runUntil(async () => {
    const workflowId = type === sessionWorkflowType ? `history-${name}` : `history-${type}-${name}`;
    // With `identity`, the session starts with its identity search attributes, as the SDK starts it.
    const identity = options.identity ? { typedSearchAttributes: identityAtStart(workflowId, input.title ?? defaultTitle(input.instruction)) } : {};
    const started = await env.client.workflow.start(type, { workflowId, taskQueue, args: [input], ...identity });
    const session = new SessionHandle(workflowId, env.client);
    await steps(session);
    const recordedId = options.of ? await options.of(session) : workflowId;
    await session.stop();
    await session.result();
    const runId = options.run !== 'first' ? undefined : recordedId === workflowId ? started.firstExecutionRunId : await firstRunId(recordedId);
    const history = await env.client.workflow.getHandle(recordedId, runId).fetchHistory();
    await writeHistory(type, name, historyToJSON(history));
  });
}

try {
  await record('demo-two-turns', 'demo', { instruction: 'Plan a garden.' }, async (session) => {
    await session.waitUntilIdle();
    const id = await session.send('/tool todoWrite {"todos": [\n/tool unknownTool {}');
    await session.waitUntilIdle({ messageId: id });
  });
  await record('model-errors', 'fake-model', { instruction: 'Survive errors.', max_tool_rounds: 4 }, async (session) => {
    fake.reply(
      { status: 503, headers: { 'retry-after': '0' } },
      { toolCalls: [{ name: 'todoWrite', arguments: '{"todos":[{"content":"Survive","status":"in_progress"}]}' }] },
      { content: 'Survived.' },
    );
    await session.waitUntilIdle();
    fake.reply({ status: 400, body: { error: { message: 'bad request' } } });
    const id = await session.send('Now fail.');
    await session.waitUntilIdle({ messageId: id });
  });
  const model = new ScriptedModel(fake);
  model
    .script(
      'Build a small tree.',
      call('subAgent', { title: 'Sync helper', instruction: 'Sync part.', mode: 'sync' }),
      call('subAgent', { title: 'Async helper', instruction: 'Async part.' }),
      call('listSubAgent', {}),
      { content: 'Tree started.' },
      { content: 'Async helper reported.' },
    )
    .script('Sync part.', { content: 'Sync part done.' })
    .script('Async part.', { content: 'Async part done.', delayMs: 500 });
  await record('sub-agents', 'fake-model', { instruction: 'Build a small tree.' }, async (session) => {
    for (let i = 0; i < 100 && (await session.snapshot()).turn < 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await session.waitUntilIdle();
  });
  // A sub-agent started without named tools: since sub-agents-not-given-automation-tools-by-default it is given its
  // parent's tools less the automation tools, as an explicit list (sub-agents.json holds what code before did).
  model
    .script('Delegate without naming tools.', call('subAgent', { title: 'Helper', instruction: 'Help without automations.', mode: 'sync' }), {
      content: 'Delegated.',
    })
    .script('Help without automations.', { content: 'Helped.' });
  await record('sub-agents-without-automation-tools', 'fake-model', { instruction: 'Delegate without naming tools.' }, async (session) => {
    await session.waitUntilIdle();
  });
  // Plan mode: a destructive call refused, then the executePlan update, whose message starts the turn that implements it.
  await record(
    'plan-mode-executed',
    'demo',
    { instruction: '/tool deleteMemory {"memory_id": "m-1"}\n/tool planWrite {"content": "# Plan\\n1. delete m-1"}', work_mode: 'plan' },
    async (session) => {
      await session.waitUntilIdle();
      const id = await session.executePlan({ id: 'execute-1', message: 'Go ahead.' });
      await session.waitUntilIdle({ messageId: id });
    },
  );
  await record('work-tools', 'demo', { instruction: '/tool planWrite {"content": "# Plan\\n1. wait", "title": "Plan"}\n/tool wait {"seconds": 2, "reason": "let time pass"}' }, async (session) => {
    await session.waitUntilIdle();
    const id = await session.send('/tool planGet {}\n/tool stopConversation {}');
    await session.waitUntilIdle({ messageId: id });
  });
  // A zone Intl reads but a schedule would not, then a valid one, both soon (after the worker's bundling): the first is
  // refused since wait-time-zone-checked-as-schedules-read-it (wait-time-zone-unchecked.json holds what code before did).
  const parisSoon = (seconds: number) =>
    new Date(Date.now() + seconds * 1000).toLocaleString('sv-SE', { timeZone: 'Europe/Paris' }).replace(' ', 'T');
  await record(
    'wait-time-zones',
    'demo',
    { instruction: `/tool wait {"until": "${parisSoon(45)}", "timezone": "europe/paris"}\n/tool wait {"until": "${parisSoon(47)}", "timezone": "Europe/Paris"}` },
    async (session) => {
      await session.waitUntilIdle();
    },
  );
  // A stream of messages into a run with a history limit of 100: one reaches the server while the task that would
  // continue as new runs, that task fails with UnhandledCommand, and its retry (since
  // continue-as-new-waits-for-messages-of-its-task) handles the message before continuing as new. The first run is
  // written; messages-race-continue-as-new-before.json holds one from code before the change, whose retry continued as new.
  model.script('Take a stream.', ...Array.from({ length: 400 }, () => ({ content: 'Noted.' })));
  await record(
    'messages-race-continue-as-new',
    'fake-model',
    { instruction: 'Take a stream.', history_limit: 100 },
    async (session) => {
      await session.waitUntilIdle();
      const workflow = env.client.workflow.getHandle(session.id);
      const firstRun = (await workflow.describe()).runId;
      const sends: Promise<string>[] = [];
      for (let index = 0; index < 300 && (await workflow.describe()).runId === firstRun; index++) {
        sends.push(session.send(`stream message ${index}`));
        await new Promise((resolve) => setTimeout(resolve, index % 3));
      }
      await session.waitUntilIdle({ messageId: (await Promise.all(sends)).at(-1)! });
      const events = (await env.client.workflow.getHandle(session.id, firstRun).fetchHistory()).events ?? [];
      if (!events.some((event) => event.workflowTaskFailedEventAttributes)) throw new Error('no message raced the continue-as-new: record again');
    },
    { run: 'first' },
  );
  const question = { question: 'Which colour?', header: 'Colour', options: [{ label: 'Blue', description: 'Calm' }, { label: 'Green', description: 'Fresh' }] };
  model
    .script(
      'Ask around.',
      call('askUser', { questions: [question] }),
      call('subAgent', { title: 'Asker', instruction: 'Ask from below.', mode: 'sync' }),
      { content: 'Everyone answered.' },
    )
    .script('Ask from below.', call('askUser', { questions: [{ ...question, multiSelect: true }] }), { content: 'Child answered.' });
  await record('ask-user', 'fake-model', { instruction: 'Ask around.' }, async (session) => {
    const waitForQuestion = async () => {
      for (let i = 0; i < 100 && (await session.pendingQuestions()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    await waitForQuestion();
    await session.answer({ 'Which colour?': 'Blue' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await waitForQuestion();
    await session.answer({ 'Which colour?': ['Blue', { other: 'Teal' }] });
    await session.waitUntilIdle();
  });
  // The root's askUser round writes waiting_for_user alone, not running first (status-waiting-for-user-written-alone).
  model.script('Ask once.', call('askUser', { questions: [question] }), { content: 'Answered once.' });
  await record('ask-user-status-written-once', 'fake-model', { instruction: 'Ask once.' }, async (session) => {
    for (let i = 0; i < 100 && (await session.pendingQuestions()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await session.answer({ 'Which colour?': 'Green' });
    await session.waitUntilIdle();
  });
  model
    .script(
      'Share a board.',
      call('TaskCreate', { subject: 'Root task' }),
      call('subAgent', { title: 'Board helper', instruction: 'Use the board.', mode: 'sync' }),
      call('TaskList', {}),
      { content: 'Board shared.' },
    )
    .script('Use the board.', call('TaskCreate', { subject: 'Child task' }), call('TaskUpdate', { task_id: '2', addBlockedBy: ['1'], status: 'in_progress' }), { content: 'Child used the board.' });
  await record('task-board', 'fake-model', { instruction: 'Share a board.' }, async (session) => {
    await session.waitUntilIdle();
  });
  model.script(
    'Remember for later.',
    { toolCalls: [{ name: 'saveMemory', arguments: JSON.stringify({ content: 'Ship on Fridays.', tags: ['release'] }) }] },
    call('updateMemory', { memory_id: 'mem-1', tags: ['release', 'team'] }),
    call('searchMemory', { query: 'when do we ship' }),
    { content: 'Remembered and found.' },
  );
  await record('memory', 'fake-model', { instruction: 'Remember for later.', owner: 'history' }, async (session) => {
    await session.waitUntilIdle();
    if (wanted.length === 0 || wanted.includes('memory')) {
      const history = await env.client.workflow.getHandle(memoryStoreId('history')).fetchHistory();
      await writeHistory(memoryStoreWorkflowType, 'memory-store', historyToJSON(history));
    }
  });
  let goalId = '';
  model.script(
    'Set a goal and a loop.',
    { toolCalls: [
      { name: 'createGoal', arguments: JSON.stringify({ condition: 'Two ticks seen', max_turns: 4 }) },
      { name: 'createLoop', arguments: JSON.stringify({ prompt: 'Tick', interval_seconds: 1, max_turns: 2 }) },
    ] },
    (request) => {
      goalId = JSON.parse(request.body.messages.filter((message) => message.role === 'tool')[0]!.content!).goal_id;
      return { content: 'Goal and loop set.' };
    },
    { content: 'Waiting for ticks.' },
    { content: 'Tick one.' },
    () => call('completeGoal', { goal_id: goalId }),
    { content: 'Goal met.' },
  );
  await record('goals-loops', 'fake-model', { instruction: 'Set a goal and a loop.' }, async (session) => {
    for (let i = 0; i < 200 && (await session.snapshot()).loops[0]?.status !== 'exhausted'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await session.waitUntilIdle();
  });
  model
    .script(
      'Answer, then use tools.',
      { content: 'A one-call turn.' },
      { toolCalls: [
        { name: 'saveMemory', arguments: JSON.stringify({ content: 'Turns with tools show running.' }) },
        { name: 'subAgent', arguments: JSON.stringify({ title: 'Board writer', instruction: 'Write to the board.', mode: 'sync' }) },
      ] },
      { content: 'Tools used.' },
    )
    .script('Write to the board.', call('TaskCreate', { subject: 'From below' }), { content: 'Written.' });
  await record('status-step-keys', 'fake-model', { instruction: 'Answer, then use tools.', owner: 'history-steps' }, async (session) => {
    await session.waitUntilIdle();
    const id = await session.send('Now use tools.');
    await session.waitUntilIdle({ messageId: id });
  });
  // A goal drives turn after turn, so the session is never idle; past history_limit it continues as new between them.
  model.script('Take twenty steps.', call('createGoal', { condition: 'Twenty steps', max_turns: 20 }), ...Array.from({ length: 20 }, (_, index) => ({ content: `Step ${index}.` })));
  await record(
    'goal-continues-as-new',
    'fake-model',
    { instruction: 'Take twenty steps.', history_limit: 100 },
    async (session) => {
      for (let i = 0; i < 300 && (await session.snapshot()).goals[0]?.status !== 'exhausted'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      await session.waitUntilIdle();
    },
    { run: 'first' },
  );
  // A sub-agent kept alive by its loop continues as new past history_limit, which its parent hands down.
  model
    .script('Run a ticker.', call('subAgent', { title: 'Ticker', instruction: 'Tick twenty times.', mode: 'sync' }), { content: 'Ticker done.' })
    .script('Tick twenty times.', call('createLoop', { prompt: 'Tick', interval_seconds: 1, max_turns: 20 }), { content: 'Loop set.' }, ...Array.from({ length: 20 }, (_, index) => ({ content: `tick ${index}` })));
  await record(
    'sub-agent-continues-as-new',
    'fake-model',
    { instruction: 'Run a ticker.', history_limit: 100 },
    async (session) => {
      for (let i = 0; i < 600 && (await session.snapshot()).last_message?.content !== 'Ticker done.'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    },
    { run: 'first', of: async (session) => (await session.snapshot()).children[0]!.sub_session_id },
  );
  // Recorded with the first change made after arborSessionV2 began (the first turn timed from the session's start):
  // the histories above, recorded before it, replay its unpatched branch.
  model.script('Time the first turn.', call('todoWrite', { todos: [{ content: 'Time it', status: 'in_progress' }] }), { content: 'Timed.' }, { content: 'Second turn.' });
  await record('first-turn-clock', 'fake-model', { instruction: 'Time the first turn.' }, async (session) => {
    await session.waitUntilIdle();
    const id = await session.send('Once more.');
    await session.waitUntilIdle({ messageId: id });
  });
  // Recorded with host tools (a catalogue in prepareSession's result, calls as `tool:<name>` activities): one round
  // with a call that answers JSON, a built-in tool's activity and a call whose arguments the tool's schema refuses
  // (the order their activities are scheduled in is part of the history), then a second turn without host tools.
  const lookupOrder = defineHostTool({
    name: 'lookup_order',
    description: 'Look up an order by its id.',
    input: z.object({ order_id: z.string() }),
    run: ({ order_id }) => ({ order_id, status: 'shipped' }),
  });
  await record(
    'host-tools',
    'demo',
    {
      instruction: '/tool lookup_order {"order_id": "A1"}\n/tool saveMemory {"content": "A1 shipped."}\n/tool lookup_order {"order_id": 5}',
      owner: 'history-host-tools',
    },
    async (session) => {
      await session.waitUntilIdle();
      const id = await session.send('Thanks.');
      await session.waitUntilIdle({ messageId: id });
    },
    { tools: [lookupOrder] },
  );
  // Recorded with approval before host tool calls (change host-tool-approval-asked): a round of two calls of a tool
  // whose needsApproval function asks the worker (a local activity each) and approves the small refund by itself,
  // the large one approved by the user; then a call of a tool that always asks, denied with a reason.
  const refund = defineHostTool({
    name: 'refund',
    description: 'Refunds an order.',
    input: z.object({ order_id: z.string(), eur: z.number() }),
    needsApproval: ({ eur }) => eur > 100,
    run: ({ order_id, eur }) => `refunded ${eur} EUR on ${order_id}`,
  });
  const wireMoney = defineHostTool({
    name: 'wire_money',
    description: 'Wires money.',
    input: z.object({ to: z.string(), eur: z.number() }),
    needsApproval: true,
    run: ({ to, eur }) => ({ to, wired: eur }),
  });
  const answerApproval = async (session: SessionHandle, answers: Record<string, unknown>) => {
    for (let tries = 0; (await session.pendingQuestions()).length === 0; tries++) {
      if (tries > 200) throw new Error('no approval was asked');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await session.answer(answers as Parameters<SessionHandle['answer']>[0]);
  };
  await record(
    'host-tool-approval',
    'demo',
    { instruction: '/tool refund {"order_id": "A1", "eur": 20}\n/tool refund {"order_id": "A2", "eur": 500}' },
    async (session) => {
      await answerApproval(session, { Approval: 'Approve' });
      await session.waitUntilIdle();
      const id = await session.send('/tool wire_money {"to": "NL01", "eur": 900}');
      await answerApproval(session, { Approval: ['Deny', { other: 'not that account' }] });
      await session.waitUntilIdle({ messageId: id });
    },
    { tools: [refund, wireMoney] },
  );
  // Recorded with a memory write whose activity fails for good (change store-writes-settled-after-failure): every
  // attempt loses its reply, the first after saving, so the settling activity finds the write applied; a second
  // write never reaches the store, and settling it records that it was not applied.
  let attempts = 0;
  await record(
    'memory-write-settled',
    'demo',
    { instruction: '/tool saveMemory {"content": "Ship on Fridays."}\n/tool saveMemory {"content": "Never stored."}', owner: 'history-settled' },
    (session) => session.waitUntilIdle().then(() => undefined),
    {
      activities: {
        writeMemory: async (write: MemoryWriteCall) => {
          if (attempts++ === 0) await createMemoryAccess(env.client, Context.current().info.taskQueue).write(write.owner, write.request, write.update_id);
          throw ApplicationFailure.create({ message: 'the reply was lost', nextRetryDelay: '10 ms' });
        },
      },
    },
  );
  // Recorded with an automation created by a tool call, whose activity input carries the call's key (call_key).
  await record(
    'automation-create',
    'demo',
    {
      instruction:
        '/tool automation_create {"title": "Digest", "prompt": "Write the digest.", "timezone": "UTC", "start_local": "2099-01-01T09:00", "recurrence": "weekly"}',
      owner: 'history-automations',
    },
    async (session) => {
      await session.waitUntilIdle();
      const automations = createAutomations(env.client, 'record-automation-create');
      for (const automation of await automations.list('history-automations')) await automations.delete('history-automations', automation.automation_id);
    },
  );
  // A session of an older type, with a sub-agent behind it, talks past history_limit: its first run continues as new
  // as arborSessionV2 (the change that lets it), and the next run answers a turn more.
  for (const type of [previousSessionWorkflowType, legacySessionWorkflowType]) {
    await record(
      'continues-as-new-as-v2',
      'demo',
      { instruction: 'Please delegate the garden plan.', history_limit: 100 },
      async (session) => {
        const workflow = env.client.workflow.getHandle(session.id);
        const firstRun = (await workflow.describe()).runId;
        await session.waitUntilIdle();
        for (let bed = 1; (await workflow.describe()).runId === firstRun; bed++) {
          if (bed > 30) throw new Error('the first run did not continue as new');
          await session.waitUntilIdle({ messageId: await session.send(`Plan bed ${bed}.`) });
        }
        await session.waitUntilIdle({ messageId: await session.send('Plan the last bed.') });
      },
      { run: 'first', type },
    );
  }
  // Messages through the sendMessage update: two from the SDK, one with no id (the session names it), one sent again
  // (delivered once); a malformed userMessage signal recorded as an error event; refused updates leave nothing.
  await record('send-message', 'demo', { instruction: 'Plan a garden.' }, async (session) => {
    await session.waitUntilIdle();
    const workflow = env.client.workflow.getHandle(session.id);
    const first = await session.send('Plan the beds.');
    await session.waitUntilIdle({ messageId: first });
    await workflow.executeUpdate(sendMessageUpdate, { args: [{ id: first, content: 'Plan the beds.' }] });
    await workflow.executeUpdate(sendMessageUpdate, { args: [{ content: '' }] }).catch(() => undefined);
    await workflow.signal(userMessageSignal, { id: 'm-bad', text: 'Plan the paths.' } as never);
    const { message_id } = await workflow.executeUpdate(sendMessageUpdate, { args: [{ content: 'Plan the paths.' }] });
    await session.waitUntilIdle({ messageId: message_id });
  });
  // A sub-agent model the endpoint does not list is refused before any sub-agent starts (sub-agent-model-checked); one it
  // lists but answers 404 for fails the sub-agent's turn at once, and its result says why (sub-agent-reports-its-error).
  // The first file is the parent's history, the second the failing sub-agent's.
  fake.models = ['fake-model', 'gone-model'];
  for (const [name, of] of [
    ['sub-agent-models', undefined],
    ['sub-agent-model-not-found', async (session: SessionHandle) => (await session.snapshot()).children[0]!.sub_session_id],
  ] as const) {
    model
      .script(
        'Pick models.',
        call('subAgent', { title: 'Ghost', instruction: 'Ghost part.', mode: 'sync', model: 'ghost-model' }),
        call('subAgent', { title: 'Gone', instruction: 'Gone part.', mode: 'sync', model: 'gone-model' }),
        { content: 'Models tried.' },
      )
      .script('Gone part.', { status: 404, body: { error: { message: 'The model `gone-model` does not exist' } } });
    const steps = async (session: SessionHandle) => void (await session.waitUntilIdle());
    await record(name, 'fake-model', { instruction: 'Pick models.' }, steps, of ? { of } : {});
  }
  fake.models = undefined;
  // Started as the SDK starts a session, with its identity attributes, and with the later changes asked as one patch
  // in its first activation (later-changes-asked-once-at-run-start): no workflow task makes two search-attribute
  // writes. A round two seconds into its turn with a call that may ask for approval holds its running
  // (status-running-held-for-approvals): a refund the tool lets run writes running just before its activity, a wire
  // asks and writes waiting_for_user alone, and so does an askUser round. With a history limit of 60 the session
  // continues as new after its second turn; the carried run asks the same patch as it begins.
  const onePerTask = 'Write one status per task.';
  const threeTurns = [
    { ...call('refund', { order_id: 'A1', eur: 20 }), delayMs: 2_100 },
    { content: 'Refunded.' },
    call('askUser', { questions: [question] }),
    { content: 'Answered.' },
    { ...call('wire_money', { to: 'NL01', eur: 900 }), delayMs: 2_100 },
    { content: 'Wired.' },
  ];
  // The askUser question and the approvals are answered alike: the set waiting is answered once it is there.
  const askAndWire = async (session: SessionHandle) => {
    const ask = await session.send('Ask me.');
    await answerApproval(session, { 'Which colour?': 'Blue' });
    await session.waitUntilIdle({ messageId: ask });
    const wire = await session.send('Wire it.');
    await answerApproval(session, { Approval: 'Approve' });
    await session.waitUntilIdle({ messageId: wire });
  };
  model.script(onePerTask, ...threeTurns);
  await record(
    'status-writes-one-per-task',
    'fake-model',
    { instruction: onePerTask },
    async (session) => {
      await session.waitUntilIdle();
      await askAndWire(session);
    },
    { tools: [refund, wireMoney], identity: true },
  );
  // The same session with a history limit of 100: after a fourth turn it continues as new while idle, and the carried
  // run, which asks the same patch as it begins, asks and wires again. Its run is written.
  model.script(onePerTask, ...threeTurns, { content: 'Once more.' }, ...threeTurns.slice(2));
  await record(
    'status-writes-one-per-task-carried',
    'fake-model',
    { instruction: onePerTask, history_limit: 100 },
    async (session) => {
      await session.waitUntilIdle();
      await askAndWire(session);
      const once = await session.send('Once more.');
      await session.waitUntilIdle({ messageId: once });
      await askAndWire(session);
    },
    { tools: [refund, wireMoney], identity: true },
  );
  // The claurst and soai agent tools: a named background Agent, a SendMessage to it, TaskOutput's durable wait for its
  // end, subagent_observe's snapshot, and the async notice's turn.
  let helperId = '';
  model
    .script(
      'Use the seed agent tools.',
      call('Agent', { description: 'Helper', prompt: 'Help in the background.', run_in_background: true, name: 'helper' }),
      (request) => {
        helperId = (JSON.parse(toolResults(request)[0]!) as { agent_id: string }).agent_id;
        return call('SendMessage', { to: 'helper', message: 'Also say hello.' });
      },
      () => call('TaskOutput', { task_id: helperId, timeout: 60_000 }),
      () => call('subagent_observe', { subagent_id: helperId }),
      { content: 'Seed tools used.' },
      { content: 'Notice read.' },
    )
    .script('Help in the background.', { content: 'Helping.', delayMs: 1_000 }, { content: 'Hello.' });
  await record('seed-agent-tools', 'fake-model', { instruction: 'Use the seed agent tools.' }, async (session) => {
    await session.waitUntilIdle();
    for (let i = 0; i < 100 && (await session.snapshot()).turn < 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await session.waitUntilIdle();
  });
  // Recorded with 45 host tools, past the tool search limit (deferred behind ToolSearch): a call to a deferred tool not
  // loaded (a tool error), ToolSearch by select: and by keyword, the loaded tool's call; then the Skill tool (its
  // readSkill activity) with a skill, the list and an unknown name.
  const skillsDir = await mkdtemp(join(tmpdir(), 'record-skills-'));
  await writeFile(join(skillsDir, 'greet.md'), '---\ndescription: Greet someone\n---\nGreet $ARGUMENTS warmly.\n');
  const manyTools = Array.from({ length: 45 }, (_, index) =>
    defineHostTool({
      name: `catalogue_tool_${index}`,
      description: `Catalogue tool number ${index}.`,
      input: z.object({ value: z.string() }),
      run: ({ value }) => `tool ${index}: ${value}`,
    }),
  );
  await record(
    'tool-search-and-skill',
    'demo',
    { instruction: '/tool catalogue_tool_3 {"value": "early"}\n/tool ToolSearch {"query": "select:catalogue_tool_3"}\n/tool ToolSearch {"query": "number 4", "max_results": 2}' },
    async (session) => {
      await session.waitUntilIdle();
      const call = await session.send('/tool catalogue_tool_3 {"value": "loaded"}');
      await session.waitUntilIdle({ messageId: call });
      const skills = await session.send('/tool Skill {"skill": "greet", "args": "Ada"}\n/tool Skill {"skill": "list"}\n/tool Skill {"skill": "nope"}');
      await session.waitUntilIdle({ messageId: skills });
    },
    { tools: manyTools, skillsDir },
  );
  await rm(skillsDir, { recursive: true, force: true });
  // A session of the soai tool profile: soai's names for the todo list and the plan, and a subagent_spawn whose child
  // has the profile too and soai's default set less the fixed removals.
  model
    .script(
      'Work in the soai dialect.',
      call('todo_write', { todos: [{ content: 'Copy the data', status: 'in_progress' }] }),
      call('plan_write', { content: '# Migration', title: 'Migration' }),
      call('subagent_spawn', { task: 'Look around in soai.', display_name: 'Scout' }),
      { content: 'Spawned.' },
      { content: 'Noted.' },
    )
    .script('Look around in soai.', { content: 'Looked around.' });
  await record('soai-profile', 'fake-model', { instruction: 'Work in the soai dialect.', profile: 'soai' }, async (session) => {
    for (let i = 0; i < 100 && (await session.snapshot()).turn < 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await session.waitUntilIdle();
  });
  // A budgeted tree: the root and an async helper draw from the root's tokens until the budget is spent (the helper's
  // call is not made), then the budget is raised and the root goes on.
  const spend = (reply: ReturnType<typeof call> | { content: string }) => ({ ...reply, usage: { prompt_tokens: 30, completion_tokens: 10 } });
  model
    .script(
      'Spend with a helper.',
      spend(call('subAgent', { title: 'Spender', instruction: 'Spend more.', mode: 'async' })),
      spend({ content: 'Helper started.' }),
      spend({ content: 'Going on after the raise.' }),
    )
    .script('Spend more.', spend({ content: 'Spent.' }));
  await record('budget-spent-and-raised', 'fake-model', { instruction: 'Spend with a helper.', max_tokens: 60 }, async (session) => {
    for (let i = 0; i < 200; i++) {
      const snapshot = await session.snapshot();
      if (snapshot.children[0] && snapshot.children[0].status !== 'running' && snapshot.status === 'idle') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await session.setBudget({ max_tokens: 1_000 });
    const id = await session.send('Go on.');
    await session.waitUntilIdle({ messageId: id });
  });
  // An interruptible session: a slow model call interrupted by a message, then a steer taken into a turn between its
  // rounds.
  model.script(
    'Work slowly.',
    { content: 'This answer is never finished.', delayMs: 4_000 },
    { content: 'Answered the interrupt.' },
    { ...call('todoWrite', { todos: [{ content: 'Slow step', status: 'in_progress' }] }), delayMs: 1_500 },
    { content: 'Took the steer.' },
  );
  await record('steer-and-interrupt', 'fake-model', { instruction: 'Work slowly.', interruptible: true }, async (session) => {
    for (let i = 0; i < 100 && (await session.snapshot()).status !== 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const interrupt = await session.send('Stop and answer this.', { mode: 'interrupt' });
    await session.waitUntilIdle({ messageId: interrupt });
    const next = await session.send('Now a slow step.');
    await new Promise((resolve) => setTimeout(resolve, 700));
    await session.send('Mind the steer.', { mode: 'steer' });
    await session.waitUntilIdle({ messageId: next });
    await session.waitUntilIdle();
  });
  // An interrupt that meets a heartbeating host tool call and a remote tool call without a heartbeat timeout (which
  // cannot be cancelled), in one round. Committed as recorded by the code from before
  // `interrupt-waits-for-uncancellable-tool-calls` (the remote call read `Interrupted: ...` at once), so that its
  // replay takes the unpatched path; recorded again by today's code, it takes the patched one.
  const uncancellableQueue = 'record-interrupt-meets-uncancellable-call';
  model.script(
    'Count and audit aisle 9.',
    {
      toolCalls: [
        { name: 'slow_audit', arguments: JSON.stringify({ aisle: '9' }) },
        { name: 'stock_count', arguments: JSON.stringify({ aisle: '9' }) },
      ],
    },
    { content: 'Audit skipped.' },
  );
  await record(
    'interrupt-meets-uncancellable-call',
    'fake-model',
    { instruction: 'Count and audit aisle 9.', interruptible: true },
    async (session) => {
      for (let i = 0; i < 100 && (await session.snapshot()).status !== 'running'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const interrupt = await session.send('Skip the audit.', { mode: 'interrupt' });
      await session.waitUntilIdle({ messageId: interrupt });
    },
    {
      tools: [
        defineHostTool({
          name: 'slow_audit',
          description: 'Audits an aisle; takes minutes unless cancelled.',
          input: z.object({ aisle: z.string() }),
          run: (_args, context) =>
            new Promise<string>((resolve) => {
              const done = setTimeout(() => resolve('audited'), 60_000);
              context.signal.addEventListener('abort', () => (clearTimeout(done), resolve('aborted')));
            }),
        }),
        defineRemoteTool({
          name: 'stock_count',
          description: 'Counts the boxes in an aisle.',
          parameters: { type: 'object', properties: { aisle: { type: 'string' } }, required: ['aisle'] },
          taskQueue: uncancellableQueue,
        }),
      ],
      activities: {
        'tool:stock_count': () => new Promise((resolve) => setTimeout(() => resolve('412 boxes in aisle 9'), 2_000)),
      },
    },
  );
  // Inputs the workflow refuses: a session started with a string, a memory store with no owner. Each fails at once.
  for (const [type, input] of [
    [sessionWorkflowType, 'Plan a garden.'],
    [memoryStoreWorkflowType, { owner: '' }],
  ] as const) {
    if (wanted.length > 0 && !wanted.includes('invalid-input')) continue;
    const taskQueue = `record-invalid-input-${type}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, ...workflowSourceWorkerOptions() });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(type, { workflowId: `history-invalid-input-${type}`, taskQueue, args: [input] });
      await handle.result().catch(() => undefined);
      await writeHistory(type, 'invalid-input', historyToJSON(await handle.fetchHistory()));
    });
  }
} finally {
  await env.teardown();
  await fake.stop();
}
