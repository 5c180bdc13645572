import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { waitUntil } from '../support/wait.js';
import { runCli } from '../support/processes.js';
import type { SessionHandle } from '../../src/client/session-handle.js';

const secret = 'the heron counts seventeen violet pebbles';
const receiver = new OtlpReceiver();
const tracedEnv: NodeJS.ProcessEnv = {
  // A traced worker runs a bundle with the tracing interceptors, never ARBOR_WORKFLOW_BUNDLE's: unset, to be sure.
  ARBOR_WORKFLOW_BUNDLE: '',
  OTEL_SERVICE_NAME: 'arbor-traced-worker',
  // Nothing is sent before the worker stops: the spans arrive only if shutdown flushes them.
  OTEL_BSP_SCHEDULE_DELAY: '600000',
  // No workflow cache: every workflow task replays the history before it, so a span sent twice, or made again with
  // another id, would show.
  ARBOR_TEST_MAX_CACHED_WORKFLOWS: '0',
};
const traced = devServerWorkers('sk-tracing-on', { startWorker: false, workerEnv: tracedEnv });
const untracedEnv: NodeJS.ProcessEnv = { OTEL_SERVICE_NAME: 'arbor-untraced-worker', OTEL_SDK_DISABLED: 'true' };
const untraced = devServerWorkers('sk-tracing-off', { startWorker: false, workerEnv: untracedEnv });
let tracedWorker: Promise<ChildProcess>;

beforeAll(async () => {
  await receiver.start();
  tracedEnv.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  // An endpoint is set for the untraced worker too, but OTEL_SDK_DISABLED=true wins.
  untracedEnv.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  // The traced worker bundles the workflow code with the tracing interceptors as it starts: meanwhile the untraced
  // worker's test runs.
  tracedWorker = traced.startWorker();
  tracedWorker.catch(() => {});
});
afterAll(() => receiver.stop());

/** What every scripted answer reports having used, which the model spans carry. */
const usage = { prompt_tokens: 1, completion_tokens: 1 };

/** A root session that starts a sub-agent (with a bad tool call beside it), and the sub-agent's answer. */
function scriptTree(servers: ReturnType<typeof devServerWorkers>, root: string, child: string, laterAnswer: string) {
  servers.model
    .script(
      root,
      {
        toolCalls: [
          { name: 'subAgent', arguments: JSON.stringify({ title: 'Child', instruction: child }) },
          { name: 'noSuchTool', arguments: '{}' },
        ],
        usage,
      },
      { content: `Spawned: ${secret}`, usage },
      { content: 'Handled the notice.', usage },
      { content: laterAnswer, usage },
    )
    .script(child, { content: `Child finished: ${secret}`, usage });
}

async function runTree(servers: ReturnType<typeof devServerWorkers>, root: string, start?: () => Promise<string>): Promise<SessionHandle> {
  const session = start ? servers.client.session(await start()) : await servers.client.startSession({ instruction: root });
  await waitUntil(async () => {
    const snapshot = await session.snapshot();
    return snapshot.status === 'idle' && snapshot.children.length === 1 && snapshot.children.every((c) => c.status === 'completed');
  }, 45_000);
  return session;
}

async function stopGracefully(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
}

/** The headers Temporal recorded on a session's scheduled activities and started children. */
async function recordedHeaderKeys(servers: ReturnType<typeof devServerWorkers>, sessionId: string): Promise<string[]> {
  const history = await servers.client.temporal.workflow.getHandle(sessionId).fetchHistory();
  return (history.events ?? []).flatMap((event) =>
    Object.keys(
      event.activityTaskScheduledEventAttributes?.header?.fields ??
        event.startChildWorkflowExecutionInitiatedEventAttributes?.header?.fields ??
        {},
    ),
  );
}

describe('a worker with tracing off', () => {
  const servers = untraced;

  it('sends nothing and installs no interceptor: no trace header reaches the history', async () => {
    const root = `untraced root ${Date.now()}: ${secret}`;
    servers.model.script(root, { content: `Done: ${secret}` });
    const worker = await servers.startWorker();
    const session = await servers.client.startSession({ instruction: root });
    await session.waitUntilIdle({ timeoutMs: 30_000 });
    await stopGracefully(worker);

    expect(receiver.spans.filter((span) => span.serviceName === 'arbor-untraced-worker')).toEqual([]);
    expect(servers.fake.requests.length).toBeGreaterThan(0);
    const history = await servers.client.temporal.workflow.getHandle(session.id).fetchHistory();
    expect(history.events?.some((event) => event.activityTaskScheduledEventAttributes)).toBe(true);
    expect(await recordedHeaderKeys(servers, session.id)).toEqual([]);
  });
});

describe('a worker with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  const servers = traced;

  it('sends one trace per session tree, from the traced CLI that started it, with turn, model, tool and handler spans and no prompt text', async () => {
    const root = `traced root ${Date.now()}: ${secret}`;
    const child = `${root} / child`;
    scriptTree(servers, root, child, 'Noted the heron.');
    const worker = await tracedWorker;
    // The CLI traces too: its spans are sent as each command closes its client.
    const cliEnv = { ...servers.cliEnv, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'arbor-traced-cli' };
    const session = await runTree(servers, root, async () => (await runCli(['start', root], cliEnv)).stdout.trim());
    const childId = (await session.snapshot()).children[0]!.sub_session_id;
    const sent = await runCli(['send', session.id, 'A note about the heron.', '--wait'], cliEnv);
    expect(sent.stdout).toContain('Noted the heron.');
    await session.stop();
    expect(receiver.spans.filter((span) => span.serviceName === 'arbor-traced-worker')).toEqual([]);
    await stopGracefully(worker);

    const spans = receiver.spans.filter((span) => span.serviceName === 'arbor-traced-worker');
    const cliSpans = receiver.spans.filter((span) => span.serviceName === 'arbor-traced-cli');
    const rootRun = spans.find((span) => span.name === 'RunWorkflow:arborSessionV3' && span.attributes.workflowId === session.id);
    expect(rootRun, `received: ${[...new Set(spans.map((span) => span.name))].join(', ')}`).toBeDefined();
    const started = cliSpans.find((span) => span.name === 'StartWorkflow:arborSessionV3');
    expect(started, `from the CLI: ${cliSpans.map((span) => span.name).join(', ')}`).toBeDefined();
    const tree = receiver.spans.filter((span) => span.traceId === rootRun!.traceId);
    const byId = new Map(tree.map((span) => [span.spanId, span]));
    expect(byId.size, 'each span is sent once').toBe(tree.length);
    // One tree under the CLI's start: every other span has its parent in the same trace.
    expect(started!.parentSpanId).toBeUndefined();
    expect(rootRun!.parentSpanId).toBe(started!.spanId);
    for (const span of tree) if (span !== started) expect(byId.get(span.parentSpanId!), `parent of ${span.name}`).toBeDefined();

    // The session's handlers: the sub-agent's report (a signal) in the tree, and the CLI's message (an update) and its
    // polls (queries) under the CLI's spans of the send.
    expect(tree.filter((span) => span.name === 'HandleSignal:subAgentFinished').length).toBeGreaterThanOrEqual(1);
    const parentIn = (span: ReceivedSpan | undefined) =>
      cliSpans.find((cli) => cli.spanId === span?.parentSpanId && cli.traceId === span.traceId);
    const update = spans.find((span) => span.name === 'HandleUpdate:sendMessage');
    expect(parentIn(update)?.name).toBe('StartWorkflowUpdate:sendMessage');
    const queries = spans.filter((span) => span.name.startsWith('HandleQuery:'));
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(parentIn(query)?.name).toBe(query.name.replace('HandleQuery:', 'QueryWorkflow:'));
    expect(spans.some((span) => span.name === 'HandleSignal:streamDeltas')).toBe(false);

    const ancestors = (span: ReceivedSpan): string[] => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    const childRun = tree.find((span) => span.name === 'RunWorkflow:arborSessionV3' && span.attributes.workflowId === childId);
    expect(childRun, 'the sub-agent runs in its parent trace').toBeDefined();
    expect(ancestors(childRun!)).toEqual(
      expect.arrayContaining(['StartChildWorkflow:arborSessionV3', 'execute_tool subAgent', 'turn', 'RunWorkflow:arborSessionV3']),
    );

    const turns = tree.filter((span) => span.name === 'turn');
    expect(turns.map((span) => span.attributes['gen_ai.conversation.id'])).toEqual(expect.arrayContaining([session.id, childId]));
    expect(turns.every((span) => span.attributes['arbor.turn.outcome'] === 'answered')).toBe(true);

    const modelCalls = tree.filter((span) => span.name === 'chat fake-model');
    expect(modelCalls.length).toBeGreaterThanOrEqual(3);
    for (const call of modelCalls) {
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.usage.input_tokens': 1,
        'gen_ai.usage.output_tokens': 1,
      });
      expect(ancestors(call)).toEqual(expect.arrayContaining(['RunActivity:callModel', 'StartActivity:callModel', 'turn']));
    }
    expect(modelCalls.map((call) => call.attributes['gen_ai.response.finish_reasons'])).toEqual(
      expect.arrayContaining([['tool_calls'], ['stop']]),
    );

    const tools = tree.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => [span.name, span.attributes['gen_ai.tool.name'], span.attributes['arbor.tool.outcome']]).sort()).toEqual([
      ['execute_tool noSuchTool', 'noSuchTool', 'error'],
      ['execute_tool subAgent', 'subAgent', 'ok'],
    ]);

    // No content: neither the instruction nor the replies, in any span sent.
    expect(receiver.bodies.length).toBeGreaterThan(0);
    for (const body of receiver.bodies) expect(body).not.toContain('violet pebbles');
    expect(await recordedHeaderKeys(servers, session.id)).toContain('_tracer-data');
  });
});
