import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionHandle } from '../../src/client/session-handle.js';
import {
  legacySessionWorkflowType,
  previousSessionWorkflowType,
  sessionWorkflowType,
  sessionWorkflowTypeV2,
} from '../../src/shared/session.js';
import { createTimeSkippingEnvironment, demoModel, withWorker } from '../support/time-skipping.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const markerNames = (events: HistoryEvent[]) =>
  events.flatMap((event) => (event.markerRecordedEventAttributes ? [event.markerRecordedEventAttributes.markerName] : []));
const workflowTypeOf = (events: HistoryEvent[]) => events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;

describe('session workflow types', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
  });

  afterAll(async () => {
    await env?.teardown();
  });

  /** Runs the demo model's delegation turn (one sync sub-agent) in a session of the given type; returns both histories. */
  async function delegate(taskQueue: string, workflowType: string) {
    const id = randomUUID();
    await env.client.workflow.start(workflowType, {
      workflowId: id,
      taskQueue,
      args: [{ instruction: 'Please delegate the garden plan.' }],
    });
    const session = new SessionHandle(id, env.client);
    const snapshot = await session.waitUntilIdle({ timeoutMs: 20_000 });
    expect(snapshot.children).toEqual([expect.objectContaining({ title: 'Demo helper', status: 'completed' })]);
    expect(snapshot.last_message?.content).toContain('demo model');
    const history = async (workflowId: string) => (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    return {
      root: await history(id),
      child: await history(snapshot.children[0]!.sub_session_id),
      roles: (await session.transcript()).map((entry) => entry.role),
    };
  }

  // The types run side by side on one worker: what a newer type switches on stays in its own sessions.
  const all = () =>
    withWorker(env, demoModel, (taskQueue) =>
      Promise.all([
        delegate(taskQueue, sessionWorkflowType),
        delegate(taskQueue, sessionWorkflowTypeV2),
        delegate(taskQueue, previousSessionWorkflowType),
        delegate(taskQueue, legacySessionWorkflowType),
      ]),
    );
  let runs: ReturnType<typeof all> | undefined;

  it('start new sessions as arborSessionV3, which record no patch marker, root or sub-agent', async () => {
    const [{ root, child, roles }] = await (runs ??= all());
    expect(workflowTypeOf(root)).toBe('arborSessionV3');
    expect(workflowTypeOf(child)).toBe('arborSessionV3');
    // The root asks the worker where it runs (one local activity) and nothing else; the sub-agent is told its
    // environment by its parent.
    expect(markerNames(root)).toEqual(['core_local_activity']);
    expect(markerNames(child)).toEqual([]);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('still run sessions of the type before it, arborSessionV2, whose sub-agents inherit its type and environment and ask no patches', async () => {
    const [, { root, child, roles }] = await (runs ??= all());
    expect(workflowTypeOf(root)).toBe('arborSessionV2');
    expect(workflowTypeOf(child)).toBe('arborSessionV2');
    // The root asks the worker where it runs (one local activity) and asks two changes made since its type began: where
    // its first turn's clock starts, and (as it starts a sub-agent without naming tools) that the sub-agent is not given
    // the automation tools; the sub-agent is told its environment by its parent and asks nothing.
    expect(markerNames(root)).toEqual(['core_patch', 'core_local_activity', 'core_patch']);
    expect(markerNames(child)).toEqual([]);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('still run sessions of the type before that, arborSession, whose sub-agents stay of that type', async () => {
    const [, , { root, child, roles }] = await (runs ??= all());
    expect(workflowTypeOf(root)).toBe('arborSession');
    expect(workflowTypeOf(child)).toBe('arborSession');
    // No run here continues as new, so neither asks the change that would make its next run an arborSessionV2
    // (older-types-continue-as-new.test.ts has those); it asks the same two changes as arborSessionV2.
    expect(markerNames(root)).toEqual(['core_patch', 'core_local_activity', 'core_patch']);
    expect(markerNames(child)).toEqual([]);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('still run sessions of the first type, sessionWorkflow, whose sub-agents stay of that type and ask their patches', async () => {
    const [, , , { root, child, roles }] = await (runs ??= all());
    expect(workflowTypeOf(root)).toBe('sessionWorkflow');
    expect(workflowTypeOf(child)).toBe('sessionWorkflow');
    expect(markerNames(root)).toContain('core_patch');
    expect(markerNames(child)).toEqual(expect.arrayContaining(['core_local_activity', 'core_patch']));
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
