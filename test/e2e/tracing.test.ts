import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { waitUntil } from '../support/wait.js';
import type { SessionHandle } from '../../src/client/session-handle.js';

const secret = 'the heron counts seventeen violet pebbles';
const receiver = new OtlpReceiver();
const tracedEnv: NodeJS.ProcessEnv = {
  ARBOR_TEST_WORKFLOW_BUNDLE: '',
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
function scriptTree(servers: ReturnType<typeof devServerWorkers>, root: string, child: string) {
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
    )
    .script(child, { content: `Child finished: ${secret}`, usage });
}

async function runTree(servers: ReturnType<typeof devServerWorkers>, root: string): Promise<SessionHandle> {
  const session = await servers.client.startSession({ instruction: root });
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

  it('sends one trace per session tree, with turn, model and tool spans and no prompt text, flushed when it stops', async () => {
    const root = `traced root ${Date.now()}: ${secret}`;
    const child = `${root} / child`;
    scriptTree(servers, root, child);
    const worker = await tracedWorker;
    const session = await runTree(servers, root);
    const childId = (await session.snapshot()).children[0]!.sub_session_id;
    await session.stop();
    expect(receiver.bodies).toEqual([]);
    await stopGracefully(worker);

    const spans = receiver.spans.filter((span) => span.serviceName === 'arbor-traced-worker');
    const rootRun = spans.find((span) => span.name === 'RunWorkflow:arborSessionV3' && span.attributes.workflowId === session.id);
    expect(rootRun, `received: ${[...new Set(spans.map((span) => span.name))].join(', ')}`).toBeDefined();
    const tree = spans.filter((span) => span.traceId === rootRun!.traceId);
    const byId = new Map(tree.map((span) => [span.spanId, span]));
    expect(byId.size, 'each span is sent once').toBe(tree.length);
    // One tree: every span but the root session's run has its parent in the same trace.
    for (const span of tree) if (span !== rootRun) expect(byId.get(span.parentSpanId!), `parent of ${span.name}`).toBeDefined();
    expect(rootRun!.parentSpanId).toBeUndefined();

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
