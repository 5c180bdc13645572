import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { SessionTreeNode } from '../../src/client/access/session-tree.js';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import type { FakeReply } from '../support/fake-openai.js';
import { faultSettings, seededRandom } from '../support/fault-settings.js';
import { PositionalModel } from '../support/positional-model.js';
import { call } from '../support/scripted-model.js';
import { workflowBundle } from '../support/time-skipping.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type KillPoint = 'model call' | 'between tool calls' | 'sub-agent spawn' | 'continue-as-new';
const killPoints: KillPoint[] = ['model call', 'between tool calls', 'sub-agent spawn', 'continue-as-new'];

/** Every model reply waits this long, so a kill timed inside that window lands while the call is in flight. */
const modelLatencyMs = 300;
// With history_limit 100 the root continues as new after the fifth follow-up and answers the sixth in its new run.
const followUps = ['One?', 'Two?', 'Three?', 'Four?', 'Five?', 'Six?'];

/**
 * A scripted three-level session: the root saves a memory and writes todos in one round, then starts a sync
 * sub-agent, which creates a task on the tree's board (an update of the root, from an activity) and starts a sync
 * sub-agent of its own, which saves a memory. Then the root answers six follow-ups, continuing as new on the way.
 */
function scriptTree(model: PositionalModel, tag: string) {
  const root = `Root of ${tag}: gather the facts.`;
  const middle = `Middle of ${tag}: check the leaf.`;
  const leaf = `Leaf of ${tag}: note a fact.`;
  const slow = (reply: FakeReply): FakeReply => ({ ...reply, delayMs: modelLatencyMs });
  model.script(
    root,
    slow({
      toolCalls: [
        { name: 'saveMemory', arguments: JSON.stringify({ content: `The root fact of ${tag}.`, tags: ['root'] }) },
        { name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: 'Ask the middle', status: 'in_progress' }] }) },
      ],
    }),
    slow(call('subAgent', { title: 'Middle', instruction: middle, mode: 'sync' })),
    slow({ content: 'The root has its facts.' }),
    ...followUps.map((question, index) => slow({ content: `Answer ${index + 1} to "${question}"` })),
  );
  model.script(
    middle,
    slow(call('TaskCreate', { subject: 'Check the leaf', description: `The leaf of ${tag}` })),
    slow(call('subAgent', { title: 'Leaf', instruction: leaf, mode: 'sync' })),
    slow({ content: 'The middle checked the leaf.' }),
  );
  model.script(
    leaf,
    slow(call('saveMemory', { content: `The leaf fact of ${tag}.`, tags: ['leaf'] })),
    slow({ content: 'The leaf noted its fact.' }),
  );
  return { root, middle, leaf };
}

/** What must come out the same, disturbed or not: what each session said and heard, with generated ids masked. */
function comparable(entries: TranscriptEntry[]) {
  const mask = (text: string) =>
    text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>');
  return entries.map((entry) => ({
    role: entry.role,
    content: mask(entry.content),
    ...(entry.name ? { name: entry.name } : {}),
    ...(entry.tool_calls ? { calls: entry.tool_calls.map((toolCall) => `${toolCall.name} ${mask(toolCall.arguments)}`) } : {}),
  }));
}

describe('a three-level session whose worker is SIGKILLed at random points', () => {
  const servers = devServerWorkers('sk-worker-kills');
  const model = new PositionalModel(servers.fake);
  const { trials, seed } = faultSettings();
  const random = seededRandom(seed);

  async function runTree(tag: string, plan?: { point: KillPoint; continuedAfter: number }) {
    const owner = `kills-${tag}`;
    const instructions = scriptTree(model, tag);
    let killed: Promise<void> | undefined;
    let killedAt = '';
    let restartMs = 0;
    const started = Date.now();
    if (plan) {
      const trigger = chooseTrigger(plan.point, instructions, plan.continuedAfter);
      model.onRequest = (instruction, position) => {
        if (killed || instruction !== trigger.instruction || position !== trigger.position) return;
        const delay = trigger.afterReply ? modelLatencyMs + Math.floor(random() * 150) : Math.floor(random() * (modelLatencyMs - 50));
        killedAt = `${plan.point}: ${trigger.instruction.split(':')[0]} position ${position}, ${delay} ms after the request`;
        killed = new Promise((resolve) => setTimeout(resolve, delay)).then(async () => {
          const restartStart = Date.now();
          await servers.restartWorker();
          restartMs = Date.now() - restartStart;
        });
        // Rethrown where the trial awaits it; marked handled here so a failed restart is reported as this trial's.
        killed.catch(() => {});
      };
    }
    const session = await servers.client.startSession({ profile: 'all', instruction: instructions.root, owner, history_limit: 100 });
    const firstRunId = (await servers.client.temporal.workflow.getHandle(session.id).describe()).runId;
    await session.waitUntilIdle({ timeoutMs: 150_000 });
    let continuedAfter = 0;
    for (const [index, question] of followUps.entries()) {
      const messageId = await session.send(question);
      await session.waitUntilIdle({ timeoutMs: 150_000, messageId });
      const runId = (await servers.client.temporal.workflow.getHandle(session.id).describe()).runId;
      if (continuedAfter === 0 && runId !== firstRunId) continuedAfter = index + 1;
    }
    model.onRequest = () => {};
    await killed;
    return {
      ...(await outcome(session, owner, firstRunId)),
      tag,
      continuedAfter,
      killedAt,
      timing: { run_ms: Date.now() - started, worker_restart_ms: restartMs },
    };
  }

  /** Picks a model request of the tree at which to kill the worker: while it waits for the model, or just after its reply. */
  function chooseTrigger(point: KillPoint, sessions: { root: string; middle: string; leaf: string }, continuedAfter: number) {
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    switch (point) {
      case 'model call':
        return {
          ...pick([
            { instruction: sessions.root, position: pick([0, 1, 2, 3, 4, 5, 6, 7, 8]) },
            { instruction: sessions.middle, position: pick([0, 1, 2]) },
            { instruction: sessions.leaf, position: pick([0, 1]) },
          ]),
          afterReply: false,
        };
      case 'between tool calls':
        return {
          ...pick([
            { instruction: sessions.root, position: 0 },
            { instruction: sessions.middle, position: 0 },
            { instruction: sessions.leaf, position: 0 },
          ]),
          afterReply: true,
        };
      case 'sub-agent spawn':
        return {
          ...pick([
            { instruction: sessions.root, position: 1 },
            { instruction: sessions.middle, position: 1 },
          ]),
          afterReply: true,
        };
      case 'continue-as-new':
        // The reply that ends the turn after which the root continues as new (position 2 is the end of the first turn).
        return { instruction: sessions.root, position: 2 + continuedAfter, afterReply: true };
    }
  }

  async function outcome(session: SessionHandle, owner: string, firstRunId: string) {
    const tree = await session.tree();
    const middle = tree.children[0];
    const leaf = middle?.children[0];
    const transcriptOf = async (node: SessionTreeNode | undefined) =>
      node ? comparable(await servers.client.session(node.session_id).transcript()) : [];
    const temporalClient = servers.client.temporal;
    const histories = await Promise.all([
      temporalClient.workflow.getHandle(session.id, firstRunId).fetchHistory(),
      temporalClient.workflow.getHandle(session.id).fetchHistory(),
      ...[middle, leaf]
        .filter((node) => node !== undefined)
        .map((node) => temporalClient.workflow.getHandle(node.session_id).fetchHistory()),
    ]);
    const events = histories.flatMap((history) => history.events ?? []);
    const snapshot = await session.snapshot();
    const memories = await servers.client.memories(owner).list();
    return {
      shape: { root: tree.status, middle: middle?.status, leaf: leaf?.status },
      transcripts: { root: await transcriptOf(tree), middle: await transcriptOf(middle), leaf: await transcriptOf(leaf) },
      userMessages: (await session.transcript()).filter((entry) => entry.role === 'user').map((entry) => entry.content),
      memories: memories.memories.map((memory) => memory.content).sort(),
      tasks: snapshot.tasks.map((task) => task.subject),
      todos: snapshot.todos,
      histories: histories.map((history, index) => ({ workflowId: `${session.id}#${index}`, history })),
      workflowTaskFailures: events.filter(isWorkflowTaskFailure).length,
      retries: countRetries(events),
    };
  }

  /** Saves the histories of the sessions on this test's task queue after a failed trial, to inspect or replay. */
  async function keepHistories(tag: string): Promise<string> {
    const folder = await mkdtemp(join(tmpdir(), `arbor-worker-kills-${tag}-`));
    for await (const execution of servers.client.temporal.workflow.list({ query: `TaskQueue = '${servers.settings.taskQueue}'` })) {
      const history = await servers.client.temporal.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      await writeFile(join(folder, `${execution.workflowId}-${execution.runId}.json`), historyToJSON(history));
    }
    return folder;
  }

  it(
    `ends every one of ${trials} disturbed runs exactly as an undisturbed run, with each side effect once`,
    async () => {
      const reference = await runTree(`reference-${randomUUID().slice(0, 8)}`);
      expect(reference.continuedAfter, 'the reference root continues as new during the follow-ups').toBeGreaterThan(0);
      expect(reference.shape).toEqual({ root: 'idle', middle: 'completed', leaf: 'completed' });
      expect(reference.userMessages.slice(1)).toEqual(followUps);
      expect(reference.memories).toHaveLength(2);
      expect(reference.tasks).toEqual(['Check the leaf']);
      expect(reference.workflowTaskFailures).toBe(0);

      const report: string[] = [`seed ${seed}, undisturbed run ${reference.timing.run_ms} ms`];
      for (let trial = 0; trial < trials; trial++) {
        const point = killPoints[trial % killPoints.length]!;
        const tag = `trial-${trial}-${randomUUID().slice(0, 8)}`;
        const disturbed = await runTree(tag, { point, continuedAfter: reference.continuedAfter }).catch(async (error: unknown) => {
          throw new Error(
            `trial ${trial} (${point}, seed ${seed}) failed: ${String(error)}; histories kept in ${await keepHistories(tag)}`,
            { cause: error },
          );
        });
        const where = `trial ${trial} (${disturbed.killedAt}; seed ${seed})`;
        report.push(`${where}: retried ${JSON.stringify(disturbed.retries)}, ${JSON.stringify(disturbed.timing)}`);

        expect(disturbed.killedAt, where).not.toBe('');
        expect(disturbed.shape, where).toEqual(reference.shape);
        expect(disturbed.transcripts, where).toEqual(JSON.parse(JSON.stringify(reference.transcripts).replaceAll(reference.tag, tag)));
        expect(disturbed.userMessages.slice(1), where).toEqual(followUps);
        expect(disturbed.memories, where).toEqual(reference.memories.map((memory) => memory.replace(reference.tag, tag)));
        expect(disturbed.tasks, where).toEqual(reference.tasks);
        expect(disturbed.todos, where).toEqual(reference.todos);
        expect(disturbed.workflowTaskFailures, where).toBe(0);
        // The fresh histories of the disturbed run replay with today's code.
        for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, disturbed.histories)) {
          expect(result.error, `${where} ${result.workflowId}`).toBeUndefined();
        }
      }
      console.log(`[worker kills] ${report.join('\n  ')}`);
    },
    (trials + 2) * 60_000,
  );
});

function isWorkflowTaskFailure(event: HistoryEvent): boolean {
  return event.workflowTaskFailedEventAttributes !== undefined && event.workflowTaskFailedEventAttributes !== null;
}

/** Work the kill interrupted and Temporal gave to the next worker: timed-out workflow tasks and activity attempts. */
function countRetries(events: HistoryEvent[]) {
  return {
    workflow_tasks: events.filter((event) => event.workflowTaskTimedOutEventAttributes).length,
    activities: events.filter((event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1).length,
  };
}
