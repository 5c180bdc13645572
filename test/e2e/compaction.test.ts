import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { summaryPrompt } from '../../src/shared/compaction.js';
import { sessionWorkflowType, type SessionInput, type TranscriptEntry } from '../../src/shared/session.js';
import { faultWorker } from '../faults/fault-worker.js';
import type { FakeReply, RecordedRequest } from '../support/fake-openai.js';
import { runCli } from '../support/processes.js';

// About 3,800 characters a request, at Arbor's three characters a token: a 300-turn conversation is over five times that.
const harness = faultWorker('sk-compaction', { contextTokens: 1_500 });
const { fake } = harness;

/** How summary requests are answered, by the tag of the session they summarize (default: a summary naming the tag). */
const summaryAnswers = new Map<string, (request: RecordedRequest) => FakeReply>();
/** Answers held back, by the tag of the session whose turn waits on them. */
const heldTurns = new Map<string, Promise<unknown>>();
const isSummaryRequest = (request: RecordedRequest) => request.body.messages[0]?.content === summaryPrompt;
const tagOf = (request: RecordedRequest) => /\btag-[0-9a-f]{8}\b/.exec(JSON.stringify(request.body.messages))?.[0] ?? 'none';
fake.fallback = (request) => {
  const tag = tagOf(request);
  if (isSummaryRequest(request)) {
    const count = fake.requests.filter((earlier) => isSummaryRequest(earlier) && tagOf(earlier) === tag).length;
    return summaryAnswers.get(tag)?.(request) ?? { content: `SUMMARY-${count} of ${tag}` };
  }
  const held = heldTurns.get(tag);
  heldTurns.delete(tag);
  return { content: `Noted (${tag}).`, ...(held ? { after: held } : {}) };
};

const systemOf = (request: RecordedRequest) => request.body.messages[0]?.content ?? '';
const requestsOf = (tag: string) => fake.requests.filter((request) => tagOf(request) === tag);
const modelRequestsOf = (tag: string) => requestsOf(tag).filter((request) => !isSummaryRequest(request));
const summaryRequestsOf = (tag: string) => requestsOf(tag).filter(isSummaryRequest);
const summariesIn = (transcript: TranscriptEntry[]) => transcript.filter((entry) => entry.role === 'summary');

/** A session continued from a run that already had `turns` turns (as after continue-as-new), with todos and a plan. */
async function carriedSession(tag: string, turns: number, extra: Partial<SessionInput> = {}) {
  const at = new Date().toISOString();
  const transcript: TranscriptEntry[] = Array.from({ length: turns }, (_, index) => [
    { id: `${tag}-q${index}`, role: 'user' as const, content: `question ${index} of ${tag}`, created_at: at, turn: index + 1 },
    { id: `${tag}-a${index}`, role: 'assistant' as const, content: `answer ${index}`, created_at: at, turn: index + 1 },
  ]).flat();
  const carried = {
    transcript,
    inbox: [],
    turn: turns,
    model: 'fake-model',
    search_attributes: false,
    created_at: at,
    todos: [{ content: `Ship ${tag}`, status: 'in_progress' }],
    plan: { title: 'Release', content: `Plan of ${tag}: test, then ship.`, revision: 1 },
    children: [],
  };
  const input = { tools: [], system_prompt: 'You are a test agent.', carried, ...extra };
  await harness.client.temporal.workflow.start(sessionWorkflowType, {
    workflowId: `compaction-${tag}`,
    taskQueue: harness.settings.taskQueue,
    args: [input as unknown as SessionInput],
  });
  return harness.client.session(`compaction-${tag}`);
}

async function say(session: ReturnType<typeof harness.client.session>, content: string) {
  const messageId = await session.send(content);
  const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
  expect(snapshot.last_error).toBeNull();
}

const newTag = () => `tag-${randomUUID().slice(0, 8)}`;

describe('compaction of a conversation longer than the context window', () => {
  it('replaces a 300-turn conversation by a summary and its newest entries, nests later summaries, and never drops the todos or the plan', async () => {
    const tag = newTag();
    const session = await carriedSession(tag, 300);
    await say(session, `first new message of ${tag}`);
    // The first call had to leave most of the conversation out: the next turn begins with a summary.
    await say(session, `second new message of ${tag}`);
    const [firstSummaryRequest] = summaryRequestsOf(tag);
    expect(firstSummaryRequest?.body.messages[1]?.content).toMatch(/^Conversation to summarize:\n/);
    const afterSummary = modelRequestsOf(tag).at(-1)!;
    expect(systemOf(afterSummary)).toContain(`## Summary of the earlier conversation\nSUMMARY-1 of ${tag}`);
    const sent = afterSummary.body.messages.slice(1).map((message) => message.content);
    expect(sent.at(-1)).toBe(`second new message of ${tag}`);
    expect(sent).toContain(`first new message of ${tag}`);
    expect(sent).toContain('answer 299');
    // The instruction (here the carried run's first message) stays; what followed it is in the summary.
    expect(sent[0]).toBe(`question 0 of ${tag}`);
    expect(sent).not.toContain(`question 1 of ${tag}`);

    // Long messages fill the room again: the next summary folds the first in.
    for (let index = 0; index < 8 && summaryRequestsOf(tag).length < 2; index++) {
      await say(session, `long message ${index} of ${tag}: ${'words '.repeat(200)}`);
    }
    const nested = summaryRequestsOf(tag)[1]!;
    expect(nested.body.messages[1]?.content).toMatch(new RegExp(`^Earlier summary \\(fold it in\\):\\nSUMMARY-1 of ${tag}\\n`));
    await say(session, `last message of ${tag}`);
    const last = modelRequestsOf(tag).at(-1)!;
    expect(systemOf(last)).toContain(`SUMMARY-2 of ${tag}`);
    expect(systemOf(last)).not.toContain(`SUMMARY-1 of ${tag}`);

    for (const request of modelRequestsOf(tag)) {
      expect(systemOf(request)).toContain(`[in_progress] Ship ${tag}`);
      expect(systemOf(request)).toContain(`Plan of ${tag}: test, then ship.`);
    }
    const summaries = summariesIn(await session.transcript());
    expect(summaries.map((entry) => [entry.content, entry.summary_of?.reason])).toEqual([
      [`SUMMARY-1 of ${tag}`, 'context'],
      [`SUMMARY-2 of ${tag}`, 'context'],
    ]);
    expect(summaries[1]!.summary_of!.entries).toBeGreaterThan(summaries[0]!.summary_of!.entries);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });

  it('falls back to leaving the oldest messages out when the summary call fails, and says so in the transcript and events', async () => {
    const tag = newTag();
    summaryAnswers.set(tag, () => ({
      status: 400,
      body: { error: { message: 'summaries are off today', type: 'invalid_request_error' } },
    }));
    const session = await carriedSession(tag, 300);
    await say(session, `first new message of ${tag}`);
    await say(session, `second new message of ${tag}`);
    expect(summaryRequestsOf(tag)).toHaveLength(1);
    const transcript = await session.transcript();
    expect(summariesIn(transcript)).toEqual([]);
    const notice = transcript.find((entry) => entry.role === 'notice' && entry.content.startsWith('Summarizing the conversation failed'));
    expect(notice?.content).toMatch(
      /summaries are off today.*; the oldest messages are left out to fit the model's context window, as before\.$/,
    );
    const events = [];
    for await (const event of session.events({ follow: false })) events.push(event);
    expect(events.some((event) => event.type === 'notice' && event.content.startsWith('Summarizing the conversation failed'))).toBe(true);
    const request = modelRequestsOf(tag).at(-1)!;
    expect(systemOf(request)).toMatch(/earlier messages of this conversation were left out to fit the model's context window/);
    expect(systemOf(request)).toContain(`Ship ${tag}`);
    expect(request.body.messages.at(-1)?.content).toBe(`second new message of ${tag}`);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });

  it('summarizes as the session continues as new with a long transcript, and the next run sends the summary', async () => {
    const tag = newTag();
    // The summary the first fitted call asks for fails, so that the run is still long when it continues as new.
    summaryAnswers.set(tag, (request) =>
      summaryRequestsOf(tag).indexOf(request) === 0
        ? { status: 400, body: { error: { message: 'not now', type: 'invalid_request_error' } } }
        : { content: `SUMMARY at continue-as-new of ${tag}` },
    );
    const session = await carriedSession(tag, 120, { history_limit: 100 });
    const firstRun = (await harness.client.temporal.workflow.getHandle(session.id).describe()).runId;
    let runId = firstRun;
    for (let index = 0; index < 15 && runId === firstRun; index++) {
      await say(session, `message ${index} of ${tag}`);
      runId = (await harness.client.temporal.workflow.getHandle(session.id).describe()).runId;
    }
    expect(runId).not.toBe(firstRun);
    const held = await session.transcript();
    expect(held[0]).toMatchObject({ role: 'user', content: `question 0 of ${tag}` });
    // The rest is what followed the summarized part, as it was: the summary, written last, is the last entry.
    const summary = held.at(-1);
    expect(summary).toMatchObject({
      role: 'summary',
      content: `SUMMARY at continue-as-new of ${tag}`,
      summary_of: { reason: 'continue_as_new' },
    });
    await say(session, `after the new run, ${tag}`);
    expect(systemOf(modelRequestsOf(tag).at(-1)!)).toContain(`## Summary of the earlier conversation\n${summary!.content}`);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });
});

describe('compaction asked for by the user', () => {
  it('runs between turns with session.compact() and arbor compact, is refused while a turn runs or with nothing to compact, and arbor show marks the summary', async () => {
    const tag = newTag();
    const session = await harness.client.startSession({ instruction: `start ${tag}`, tools: [], system_prompt: 'You are a test agent.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    await say(session, `second message of ${tag}`);

    let release!: () => void;
    heldTurns.set(tag, new Promise<void>((resolve) => (release = resolve)));
    const held = await session.send(`held message of ${tag}`);
    await expect.poll(() => modelRequestsOf(tag).length, { timeout: 30_000 }).toBe(3);
    await expect(session.compact()).rejects.toThrow('A turn is running; compact the session between turns (when it is idle).');
    release();
    await session.waitUntilIdle({ messageId: held, timeoutMs: 60_000 });

    const receipt = await session.compact();
    expect(receipt).toMatchObject({ outcome: 'summarized', entries: 3 });
    await expect(session.compact()).rejects.toThrow('Nothing to compact: every entry since the last summary belongs to the newest turn.');
    const [summaryRequest] = summaryRequestsOf(tag);
    expect(summaryRequest!.body.messages[1]!.content).toBe(
      `Conversation to summarize:\n[assistant] Noted (${tag}).\n[user] second message of ${tag}\n[assistant] Noted (${tag}).`,
    );

    await say(session, `after compacting, ${tag}`);
    const request = modelRequestsOf(tag).at(-1)!;
    expect(systemOf(request)).toContain(`SUMMARY-1 of ${tag}`);
    expect(request.body.messages.slice(1).map((message) => message.content)).toEqual([
      `start ${tag}`,
      `held message of ${tag}`,
      `Noted (${tag}).`,
      `after compacting, ${tag}`,
    ]);

    const env = { TEMPORAL_ADDRESS: harness.settings.address, ARBOR_TASK_QUEUE: harness.settings.taskQueue };
    const compacted = await runCli(['compact', session.id], env);
    expect(compacted.stderr).toBe('');
    expect(compacted.stdout).toMatch(new RegExp(`^${session.id} compacted: 5 earlier entries are replaced by summary entry \\S+\\n$`));
    const shown = await runCli(['show', session.id, '--transcript'], env);
    expect(shown.stdout).toContain(`[summary of 3 earlier entries, asked for by the user] SUMMARY-1 of ${tag}`);
    expect(shown.stdout).toContain(`[summary of 5 earlier entries, asked for by the user] SUMMARY-2 of ${tag}`);
  });
});

describe('summary calls and the budget', () => {
  it("counts a summary call's usage into the session's and the tree's totals, and makes none at a spent budget, saying so", async () => {
    const tag = newTag();
    summaryAnswers.set(tag, () => ({ content: `SUMMARY of ${tag}`, usage: { prompt_tokens: 500, completion_tokens: 40 } }));
    const session = await harness.client.startSession({ instruction: `start ${tag}`, tools: [], system_prompt: 'You are a test agent.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    await session.setBudget({ max_tokens: 1_000_000 });
    await say(session, `second message of ${tag}`);
    const before = (await session.snapshot()).usage!;

    expect(await session.compact()).toMatchObject({ outcome: 'summarized' });
    const after = (await session.snapshot()).usage!;
    expect(after.session.calls).toBe(before.session.calls + 1);
    expect(after.session.total_tokens).toBe(before.session.total_tokens + 540);
    expect(after.tree!.total_tokens).toBe(before.tree!.total_tokens + 540);

    await say(session, `third message of ${tag}`);
    // Spent: the next turn's model call is refused, and so is the summary call compact() asks for.
    await session.setBudget({ max_tokens: (await session.snapshot()).usage!.tree!.total_tokens });
    const refused = await session.send(`fourth message of ${tag}`);
    await session.waitUntilIdle({ messageId: refused, timeoutMs: 60_000 });
    const summaryCalls = summaryRequestsOf(tag).length;
    const receipt = await session.compact();
    expect(receipt).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/^The token budget is spent: /) });
    expect(summaryRequestsOf(tag)).toHaveLength(summaryCalls);
    const notices = (await session.transcript()).filter((entry) => entry.role === 'notice').map((entry) => entry.content);
    expect(notices.at(-1)).toMatch(
      /^The conversation was not summarized, because the budget is spent; the oldest messages are left out to fit the model's context window, as before\. The token budget is spent: /,
    );
    expect(summariesIn(await session.transcript())).toHaveLength(1);
    expect(await harness.workflowTaskFailures(session.id)).toEqual([]);
  });
});
