import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import {
  legacySessionWorkflowType,
  previousSessionWorkflowType,
  sessionWorkflowType,
  sessionWorkflowTypeV2,
} from '../../src/shared/session.js';
import { memoryStoreWorkflowType } from '../../src/shared/tools/memory.js';
import { ReplayFailedError, replayHistories } from '../../src/testing.js';
import { testEncryptionKeys } from '../support/test-encryption-key.js';
import { secretsIn } from '../support/history-texts.js';

const historiesDir = fileURLToPath(new URL('../histories/', import.meta.url));

/** Committed histories, one folder per workflow type: `test/histories/<type>/<name>.json`. */
async function committedHistories() {
  const types = (await readdir(historiesDir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const histories = [];
  for (const type of types) {
    for (const file of (await readdir(historiesDir + type)).filter((name) => name.endsWith('.json'))) {
      const history = JSON.parse(await readFile(`${historiesDir}${type}/${file}`, 'utf8'));
      histories.push({ type, workflowId: `${type}/${file}`, history });
    }
  }
  return histories;
}

describe('committed histories', () => {
  it('cover every workflow type a worker runs, each in the folder of its type', async () => {
    const histories = await committedHistories();
    const perType = (type: string) => histories.filter((entry) => entry.type === type).length;
    expect(perType(sessionWorkflowType)).toBeGreaterThanOrEqual(5);
    expect(perType(sessionWorkflowTypeV2)).toBeGreaterThanOrEqual(5);
    expect(perType(previousSessionWorkflowType)).toBeGreaterThanOrEqual(5);
    expect(perType(legacySessionWorkflowType)).toBeGreaterThanOrEqual(5);
    expect(perType(memoryStoreWorkflowType)).toBeGreaterThanOrEqual(1);
    for (const { type, workflowId, history } of histories) {
      const started = history.events[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.workflowType?.name, workflowId).toBe(type);
    }
  });

  it('include, for each older session type, a first run that continues as new as arborSessionV2', async () => {
    const histories = await committedHistories();
    for (const type of [previousSessionWorkflowType, legacySessionWorkflowType]) {
      const hop = histories.find((entry) => entry.workflowId === `${type}/continues-as-new-as-v2.json`);
      expect(hop?.history.events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.workflowType?.name, type).toBe(
        sessionWorkflowTypeV2,
      );
    }
  });

  it('include a session that called a host tool as the activity tool:<name>', async () => {
    const histories = await committedHistories();
    const hostTools = histories.find((entry) => entry.workflowId === `${sessionWorkflowTypeV2}/host-tools.json`)!;
    const events = hostTools.history.events as { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }[];
    const types = events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(types).toContain('tool:lookup_order');
  });

  it('include a session whose host tool calls asked for approval, the worker deciding for some by their arguments', async () => {
    const histories = await committedHistories();
    const approval = histories.find((entry) => entry.workflowId === `${sessionWorkflowTypeV2}/host-tool-approval.json`)!;
    const text = JSON.stringify(approval.history);
    expect(text).toContain(Buffer.from(JSON.stringify({ id: 'host-tool-approval-asked', deprecated: false })).toString('base64'));
    const events = approval.history.events as { workflowExecutionUpdateAcceptedEventAttributes?: unknown }[];
    expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(2);
  });

  it('include sessions that asked the later changes as one patch, a first run and a carried run, one search-attribute write per workflow task', async () => {
    const histories = await committedHistories();
    const marker = Buffer.from(JSON.stringify({ id: 'later-changes-asked-once-at-run-start', deprecated: false })).toString('base64');
    for (const name of ['status-writes-one-per-task', 'status-writes-one-per-task-carried']) {
      const entry = histories.find((history) => history.workflowId === `${sessionWorkflowTypeV2}/${name}.json`)!;
      expect(JSON.stringify(entry.history), name).toContain(marker);
      const events = entry.history.events as {
        upsertWorkflowSearchAttributesEventAttributes?: { workflowTaskCompletedEventId?: string };
      }[];
      const tasks = events.flatMap((event) => event.upsertWorkflowSearchAttributesEventAttributes?.workflowTaskCompletedEventId ?? []);
      expect(new Set(tasks).size, name).toBe(tasks.length);
    }
  });

  it('include a wait in a zone a schedule would refuse, from before and after wait-time-zone-checked-as-schedules-read-it', async () => {
    const histories = await committedHistories();
    const timers = (name: string) => {
      const entry = histories.find((history) => history.workflowId === `${sessionWorkflowTypeV2}/${name}.json`)!;
      const events = entry.history.events as { timerStartedEventAttributes?: unknown }[];
      return { text: JSON.stringify(entry.history), started: events.filter((event) => event.timerStartedEventAttributes).length };
    };
    const marker = Buffer.from(JSON.stringify({ id: 'wait-time-zone-checked-as-schedules-read-it', deprecated: false })).toString('base64');
    const before = timers('wait-time-zone-unchecked');
    const after = timers('wait-time-zones');
    expect([before.started, before.text.includes(marker)]).toEqual([2, false]);
    expect([after.started, after.text.includes(marker)]).toEqual([1, true]);
  });

  it('include a sub-agent model refused before any sub-agent starts, and a sub-agent whose model answered 404 saying why it failed', async () => {
    const histories = await committedHistories();
    const text = (name: string) =>
      JSON.stringify(histories.find((history) => history.workflowId === `${sessionWorkflowTypeV2}/${name}.json`)!.history);
    const marker = (id: string) => Buffer.from(JSON.stringify({ id, deprecated: false })).toString('base64');
    expect(text('sub-agent-models')).toContain(marker('sub-agent-model-checked'));
    expect(text('sub-agent-model-not-found')).toContain(marker('sub-agent-reports-its-error'));
  });

  it('include a message that raced a continue-as-new, from before and after continue-as-new-waits-for-messages-of-its-task', async () => {
    const histories = await committedHistories();
    const marker = Buffer.from(JSON.stringify({ id: 'continue-as-new-waits-for-messages-of-its-task', deprecated: false })).toString(
      'base64',
    );
    const ending = (name: string) => {
      const entry = histories.find((history) => history.workflowId === `${sessionWorkflowTypeV2}/${name}.json`)!;
      const events = entry.history.events as { eventType?: string }[];
      const tasks = events.flatMap((event) =>
        event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED'
          ? ['completed']
          : event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_FAILED'
            ? ['failed']
            : [],
      );
      return { tasks: tasks.slice(-2), marked: JSON.stringify(entry.history).includes(marker), last: events.at(-1)?.eventType };
    };
    // Before, the retry of the raced task continued as new; since, the retry handles the message and a later task does.
    expect(ending('messages-race-continue-as-new-before')).toEqual({
      tasks: ['failed', 'completed'],
      marked: false,
      last: 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
    });
    const after = ending('messages-race-continue-as-new');
    expect(after).toEqual({ tasks: ['completed', 'completed'], marked: true, last: 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW' });
  });

  it('include a session that took its messages through the sendMessage update, and a malformed userMessage signal', async () => {
    const histories = await committedHistories();
    const sent = histories.find((entry) => entry.workflowId === `${sessionWorkflowTypeV2}/send-message.json`)!;
    const events = sent.history.events as {
      workflowExecutionUpdateAcceptedEventAttributes?: { acceptedRequest?: { input?: { name?: string } } };
      workflowExecutionSignaledEventAttributes?: { signalName?: string };
    }[];
    const updates = events.flatMap((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? []);
    expect(updates).toEqual(['sendMessage', 'sendMessage', 'sendMessage']);
    expect(events.flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? [])).toEqual(['userMessage']);
  });

  it('include a session and a memory store whose input was refused, each failed at once behind its patch', async () => {
    const histories = await committedHistories();
    for (const [type, change] of [
      [sessionWorkflowTypeV2, 'session-input-checked'],
      [memoryStoreWorkflowType, 'memory-store-input-checked'],
    ]) {
      const refused = histories.find((entry) => entry.workflowId === `${type}/invalid-input.json`)!;
      const text = JSON.stringify(refused.history);
      expect(text, type).toContain(Buffer.from(JSON.stringify({ id: change, deprecated: false })).toString('base64'));
      expect(refused.history.events.at(-1)?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.type, type).toMatch(
        /^Invalid(Session|MemoryStore)Input$/,
      );
    }
  });

  it('include a sub-agent started without named tools, from before and after sub-agents-not-given-automation-tools-by-default', async () => {
    const histories = await committedHistories();
    const marker = Buffer.from(JSON.stringify({ id: 'sub-agents-not-given-automation-tools-by-default', deprecated: false })).toString(
      'base64',
    );
    const childTools = (name: string) => {
      const entry = histories.find((history) => history.workflowId === `${sessionWorkflowTypeV2}/${name}.json`)!;
      const events = entry.history.events as {
        startChildWorkflowExecutionInitiatedEventAttributes?: { input?: { payloads?: { data?: string }[] } };
      }[];
      const started = events.find((event) => event.startChildWorkflowExecutionInitiatedEventAttributes)!;
      const input = JSON.parse(
        Buffer.from(started.startChildWorkflowExecutionInitiatedEventAttributes!.input!.payloads![0]!.data!, 'base64').toString(),
      );
      return { marked: JSON.stringify(entry.history).includes(marker), tools: input.tools as string[] | undefined };
    };
    expect(childTools('sub-agents')).toEqual({ marked: false, tools: undefined });
    const after = childTools('sub-agents-without-automation-tools');
    expect(after.marked).toBe(true);
    expect(after.tools).toContain('todoWrite');
    expect(after.tools?.filter((name) => name.startsWith('automation_'))).toEqual([]);
  });

  it('include a session in Plan mode switched to Execute mode by the executePlan update', async () => {
    const histories = await committedHistories();
    const planned = histories.find((entry) => entry.workflowId === `${sessionWorkflowTypeV2}/plan-mode-executed.json`)!;
    const events = planned.history.events as {
      workflowExecutionUpdateAcceptedEventAttributes?: { acceptedRequest?: { input?: { name?: string } } };
    }[];
    const updates = events.flatMap((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? []);
    expect(updates).toEqual(['executePlan']);
  });

  it('include arborSessionV3 sessions, with no patch marker and at most one search-attribute write per workflow task', async () => {
    const histories = (await committedHistories()).filter((entry) => entry.type === sessionWorkflowType);
    expect(histories.map((entry) => entry.workflowId)).toEqual(
      expect.arrayContaining([`${sessionWorkflowType}/sub-agents.json`, `${sessionWorkflowType}/status-writes-one-per-task.json`]),
    );
    for (const { workflowId, history } of histories) {
      const events = history.events as {
        markerRecordedEventAttributes?: { markerName?: string };
        upsertWorkflowSearchAttributesEventAttributes?: { workflowTaskCompletedEventId?: string };
      }[];
      expect(
        events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch'),
        workflowId,
      ).toEqual([]);
      const tasks = events.flatMap((event) => event.upsertWorkflowSearchAttributesEventAttributes?.workflowTaskCompletedEventId ?? []);
      expect(new Set(tasks).size, workflowId).toBe(tasks.length);
    }
  });

  it('replay with today’s workflow code without nondeterminism, through the testing kit’s replayHistories', async () => {
    const histories = await committedHistories();
    // encrypted-demo.json needs its key; the plain histories pass through the codec unchanged.
    const replayed = await replayHistories(historiesDir, {
      workflowBundlePath: inject('workflowBundlePath'),
      encryptionKeys: testEncryptionKeys,
    });
    expect(replayed.map((history) => history.file).sort()).toEqual(histories.map((history) => history.workflowId).sort());
  });

  it('include an encrypted session, which replays with its key and not without it', async () => {
    const file = `${historiesDir}${sessionWorkflowType}/encrypted-demo.json`;
    const text = await readFile(file, 'utf8');
    // Its conversation is ciphertext (its title, Picnic, stays visible as the ArborTitle search attribute).
    expect(secretsIn(text, ['Plan the secret picnic of the silver otters.', 'And the dessert, please.'])).toEqual([]);
    const folder = await mkdtemp(join(tmpdir(), 'arbor-encrypted-history-'));
    try {
      await copyFile(file, join(folder, 'encrypted-demo.json'));
      const bundle = { workflowBundlePath: inject('workflowBundlePath') };
      await expect(replayHistories(folder, { ...bundle, encryptionKeys: testEncryptionKeys })).resolves.toHaveLength(1);
      await expect(replayHistories(folder, bundle)).rejects.toThrow(ReplayFailedError);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
