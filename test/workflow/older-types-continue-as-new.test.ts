import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import {
  legacySessionWorkflowType,
  previousSessionWorkflowType,
  sessionWorkflowTypeV2,
  type SessionInput,
} from '../../src/shared/session.js';
import { call, toolResults } from '../support/scripted-model.js';
import { withWorker } from '../support/time-skipping.js';
import { scriptedTimeSkipping, type ScriptedTimeSkipping } from '../support/scripted-time-skipping.js';
import { runHistories, type HistoryEvent } from '../support/run-histories.js';
import { waitUntilSettled } from '../support/settle.js';
import { waitUntil } from '../support/wait.js';

const hopPatch = 'continue-as-new-as-arborSessionV2';
const decoder = new TextDecoder();

const workflowTypeOf = (events: HistoryEvent[]) => events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
const continuedAsType = (events: HistoryEvent[]) => events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.workflowType?.name;
const patchIds = (events: HistoryEvent[]) =>
  events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    return data ? [(JSON.parse(decoder.decode(data)) as { id: string }).id] : [];
  });

async function startAs(scripted: ScriptedTimeSkipping, workflowType: string, taskQueue: string, input: SessionInput) {
  const id = randomUUID();
  const started = await scripted.env.client.workflow.start(workflowType, { workflowId: id, taskQueue, args: [input] });
  return { session: new SessionHandle(id, scripted.env.client), firstRunId: started.firstExecutionRunId };
}

/**
 * Sends a message at a time until the session's first run has continued as new; returns the messages sent. Each turn
 * is seen through the model's requests and `describe()`, never a query: on the time-skipping server a query that
 * meets a continue-as-new can go unanswered (see `waitUntilSettled`).
 */
async function talkUntilContinuedAsNew(
  scripted: ScriptedTimeSkipping,
  session: SessionHandle,
  instruction: string,
  firstRunId: string,
): Promise<string[]> {
  const workflow = scripted.env.client.workflow.getHandle(session.id);
  const sent: string[] = [];
  for (;;) {
    await waitUntilSettled(scripted.env.client, session.id);
    if ((await workflow.describe()).runId !== firstRunId) return sent;
    expect(sent.length, 'messages before the run continued as new').toBeLessThan(20);
    const requests = scripted.fake.requestsFor(instruction).length;
    const text = `small talk ${sent.length}`;
    sent.push(text);
    await session.send(text);
    await waitUntil(() => scripted.fake.requestsFor(instruction).length > requests, 30_000);
  }
}

describe('root sessions of the older types continuing as new (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('older-root-model');
  const { fake, model } = scripted;

  it.each([previousSessionWorkflowType, legacySessionWorkflowType])(
    'a %s session that continues as new runs on as arborSessionV2 with its conversation, and answers its next turn with a sub-agent of that type',
    async (olderType) => {
      const instruction = scripted.unique(`a long talk with a ${olderType}`);
      const helper = scripted.unique('a helper after the hop');
      model.script(instruction, ...Array.from({ length: 20 }, (_, index) => ({ content: `reply ${index}` })));
      await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
        const { session, firstRunId } = await startAs(scripted, olderType, taskQueue, {
          instruction,
          title: 'A long talk',
          history_limit: 100,
        });
        const sent = [instruction, ...(await talkUntilContinuedAsNew(scripted, session, instruction, firstRunId))];
        const workflow = scripted.env.client.workflow.getHandle(session.id);
        expect((await workflow.describe()).type).toBe(sessionWorkflowTypeV2);

        const [first, second] = await runHistories(scripted.env.client, session.id);
        expect(workflowTypeOf(first!)).toBe(olderType);
        expect(continuedAsType(first!)).toBe(sessionWorkflowTypeV2);
        expect(patchIds(first!)).toContain(hopPatch);
        expect(workflowTypeOf(second!)).toBe(sessionWorkflowTypeV2);

        expect(await session.snapshot()).toMatchObject({ session_id: session.id, title: 'A long talk', status: 'idle', turn: sent.length });
        expect((await session.transcript()).filter((entry) => entry.role === 'user').map((entry) => entry.content)).toEqual(sent);

        // The rest of the root's script gives way to this turn's.
        model.script(instruction, call('subAgent', { title: 'Helper', instruction: helper, mode: 'sync' }), {
          content: 'The helper is done.',
        });
        model.script(helper, { content: 'Helped.' });
        const messageId = await session.send('Hand this to a helper.');
        const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 30_000 });
        expect(snapshot).toMatchObject({ turn: sent.length + 1, last_message: { content: 'The helper is done.' } });
        const helperRecord = snapshot.children.find((child) => child.title === 'Helper');
        expect(helperRecord).toMatchObject({ status: 'completed', final_message: 'Helped.', outlives_run: true });
        expect((await scripted.env.client.workflow.getHandle(helperRecord!.sub_session_id).describe()).type).toBe(sessionWorkflowTypeV2);
        // The model saw the whole conversation, carried across the hop.
        expect(
          fake
            .requestsFor(instruction)
            .at(-1)!
            .body.messages.filter((message) => message.role === 'user'),
        ).toHaveLength(sent.length + 1);

        // The newest type never asks the change: its runs continue as new as what they are.
        for (const run of (await runHistories(scripted.env.client, session.id)).slice(1)) expect(patchIds(run)).not.toContain(hopPatch);
      });
    },
  );
});

// Its own time-skipping server, since it sleeps: a query that meets a continue-as-new there can leave time skipping
// locked for good (see waitUntilSettled).
describe('a sync sub-agent of an older type continuing as new (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('older-sync-tree-model');
  const { fake, model } = scripted;

  it('continues as new as arborSessionV2, and its parent, still a sessionWorkflow, gets its answer', async () => {
    const root = scripted.unique('older root of a ticker');
    const child = scripted.unique('older ticker');
    model.script(root, call('subAgent', { title: 'Ticker', instruction: child, mode: 'sync' }), { content: 'The ticker is done.' });
    model.script(
      child,
      call('createLoop', { prompt: 'Tick', interval_seconds: 10, max_turns: 25 }),
      { content: 'Loop set.' },
      ...Array.from({ length: 25 }, (_, index) => ({ content: `tick ${index}` })),
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const { session } = await startAs(scripted, legacySessionWorkflowType, taskQueue, { instruction: root, history_limit: 100 });
      await waitUntil(() => fake.requestsFor(child).length >= 2, 30_000);
      await scripted.env.sleep('10 minutes');
      await waitUntil(async () => (await session.snapshot()).last_message?.content === 'The ticker is done.', 120_000);
      const result = JSON.parse(toolResults(fake.requestsFor(root)[1]!)[0]!);
      expect(result).toMatchObject({ status: 'completed', content: 'tick 24' });

      const runs = await runHistories(scripted.env.client, result.sub_session_id);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      expect(workflowTypeOf(runs[0]!)).toBe(legacySessionWorkflowType);
      expect(continuedAsType(runs[0]!)).toBe(sessionWorkflowTypeV2);
      for (const run of runs.slice(1)) expect(workflowTypeOf(run)).toBe(sessionWorkflowTypeV2);
      const childDescription = await scripted.env.client.workflow.getHandle(result.sub_session_id).describe();
      expect(childDescription).toMatchObject({ type: sessionWorkflowTypeV2, status: { name: 'COMPLETED' } });
      expect(childDescription.parentExecution?.workflowId).toBe(session.id);
      expect((await scripted.env.client.workflow.getHandle(session.id).describe()).type).toBe(legacySessionWorkflowType);
      expect((await session.snapshot()).children).toEqual([
        expect.objectContaining({ title: 'Ticker', status: 'completed', final_message: 'tick 24' }),
      ]);
    });
  });
});

// Its own server too, so that no other test's sleep skips time past the child's hour-long wait.
describe('an async sub-agent of an older type outliving its parent’s continue-as-new (time-skipping server, scripted model)', () => {
  const scripted = scriptedTimeSkipping('older-async-tree-model');
  const { fake, model } = scripted;

  it('keeps its arborSession type and tells its parent’s arborSessionV2 run when it ends, once', async () => {
    const root = scripted.unique('older root of a long task');
    const child = scripted.unique('older long task');
    model.script(
      root,
      call('subAgent', { title: 'Long task', instruction: child }),
      { content: 'Started the long task.' },
      ...Array.from({ length: 20 }, (_, index) => ({ content: `small talk ${index}` })),
    );
    // The child waits until a message from the test cuts its wait short.
    model.script(
      child,
      call('wait', { seconds: 3_600, reason: 'an hour-long job' }),
      { content: 'Waited.' },
      { content: 'Long task done.' },
    );
    await withWorker(scripted.env, scripted.settings, async (taskQueue) => {
      const { session, firstRunId } = await startAs(scripted, previousSessionWorkflowType, taskQueue, {
        instruction: root,
        history_limit: 100,
      });
      const workflow = scripted.env.client.workflow.getHandle(session.id);
      await waitUntil(() => fake.requestsFor(root).length === 2 && fake.requestsFor(child).length === 1, 30_000);
      await talkUntilContinuedAsNew(scripted, session, root, firstRunId);
      const childId = (await session.snapshot()).children[0]!.sub_session_id;
      const childWorkflow = scripted.env.client.workflow.getHandle(childId);
      expect((await childWorkflow.describe()).status.name).toBe('RUNNING');

      // The small talk left in the root's script gives way to the answer to the notice.
      model.script(root, { content: 'Got the notice.' });
      await new SessionHandle(childId, scripted.env.client).send('You may finish now.');
      await waitUntil(async () => (await session.snapshot()).last_message?.content === 'Got the notice.', 30_000);

      expect(await childWorkflow.describe()).toMatchObject({ type: previousSessionWorkflowType, status: { name: 'COMPLETED' } });
      expect(await runHistories(scripted.env.client, childId)).toHaveLength(1);
      const snapshot = await session.snapshot();
      expect(snapshot.children).toEqual([
        expect.objectContaining({ sub_session_id: childId, title: 'Long task', status: 'completed', outlives_run: true }),
      ]);
      const notices = (await session.transcript()).filter((entry) => entry.content.startsWith('[Sub-agent notice]'));
      expect(notices).toHaveLength(1);
      expect(notices[0]!.content).toContain('Long task done.');
      expect((await workflow.describe()).type).toBe(sessionWorkflowTypeV2);
    });
  });
});
