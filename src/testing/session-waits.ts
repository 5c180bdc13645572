import { writeFile } from 'node:fs/promises';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Duration } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SessionHandle } from '../client/session-handle.js';
import type { Answers } from '../shared/answers.js';
import { approveLabel, denyLabel } from '../shared/approvals.js';
import type { SessionEvent } from '../shared/events.js';
import type { AnswerReceipt } from '../shared/questions.js';
import type { SessionResult, SessionSnapshot, TranscriptEntry } from '../shared/session.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import { pause, quietLook, settled, whenNoWorkflowTask } from './safe-looks.js';
import type { ScriptedModel } from './scripted-model.js';

export interface WaitBound {
  /** How long to wait, in wall-clock milliseconds (default: the environment's `waitTimeoutMs`, 30,000). */
  timeoutMs?: number;
}

type SessionRef = SessionHandle | string;

/** A helper waited longer than its bound; the message says what the session was doing. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
}

/** A session ended (stopped, failed, completed) while a helper waited for it to do something else. */
export class SessionEndedError extends Error {
  override name = 'SessionEndedError';
}

/**
 * The kit's helpers. They read sessions only when no workflow task is in flight (see safe-looks.ts), and throw the
 * scripted model's problems (a script run out) as soon as one is met.
 */
export class SessionWaits {
  constructor(
    readonly env: TestWorkflowEnvironment,
    private readonly scripted: ScriptedModel | undefined,
    private readonly defaultTimeoutMs: number,
  ) {}

  /** The session's snapshot once it has finished its turn and has no queued message (not while it waits for the user). */
  waitUntilIdle(session: SessionRef, bound: WaitBound = {}): Promise<SessionSnapshot> {
    return this.waitFor(session, 'idle', bound, (snapshot) =>
      snapshot.status === 'idle' && snapshot.queued_messages === 0 ? snapshot : undefined,
    );
  }

  /** The question sets waiting for the user in the session's tree (askUser questions and approvals), once there is one. */
  waitForUser(session: SessionRef, bound: WaitBound = {}): Promise<QuestionSet[]> {
    return this.waitFor(session, 'waiting for the user', bound, (snapshot) =>
      snapshot.pending_questions.length > 0 ? snapshot.pending_questions : undefined,
    );
  }

  /** The session's result once its workflow has ended (a sub-agent's turn done, a stopped root); time skips meanwhile. */
  async waitUntilFinished(session: SessionRef, bound: WaitBound = {}): Promise<SessionResult> {
    const handle = this.handle(session);
    const timeoutMs = bound.timeoutMs ?? this.defaultTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    try {
      const outcome = await Promise.race([handle.result(), timedOut]);
      if (outcome === 'timeout') throw new WaitTimeoutError(await this.describe(handle, `finished after ${timeoutMs} ms`));
      this.scripted?.assertNoProblems();
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for a question set (or the one with this id), then answers it; answers are checked as `session.answer` checks them. */
  async answerQuestions(
    session: SessionRef,
    answers: Answers,
    options: WaitBound & { questionSetId?: string } = {},
  ): Promise<AnswerReceipt> {
    const sets = await this.waitFor(session, 'waiting for the user', options, (snapshot) => {
      const waiting = snapshot.pending_questions.filter(
        (set) => !set.approval && (!options.questionSetId || set.question_set_id === options.questionSetId),
      );
      return waiting.length > 0 ? waiting : undefined;
    });
    return this.handle(session).answer(answers, { questionSetId: sets[0]!.question_set_id });
  }

  /** Waits for a host tool's approval (of `toolName`, when given) and approves it. */
  approve(session: SessionRef, options: WaitBound & { toolName?: string } = {}): Promise<AnswerReceipt> {
    return this.decide(session, options, { [approveLabel]: approveLabel });
  }

  /** Waits for a host tool's approval (of `toolName`, when given) and denies it, with the user's reason if given. */
  deny(session: SessionRef, options: WaitBound & { toolName?: string; reason?: string } = {}): Promise<AnswerReceipt> {
    return this.decide(session, options, {
      [denyLabel]: options.reason === undefined ? denyLabel : [denyLabel, { other: options.reason }],
    });
  }

  /**
   * Waits until the session and every sub-agent below it have stopped moving, asking no query. Sub-agents are settled
   * before their parents (one that finishes wakes its parent), and the tree is looked at again until a whole pass
   * finds it unchanged: a parent woken after it looked still, or a sub-agent started meanwhile, is settled too.
   */
  async settle(session: SessionRef, bound: WaitBound = {}): Promise<void> {
    const handle = this.handle(session);
    const timeoutMs = bound.timeoutMs ?? this.defaultTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ids = await this.treeIds(handle.id);
      const looks = new Map<string, string>();
      for (const id of [...ids].reverse()) {
        const look = await settled(this.env.client, id, deadline);
        if (look === undefined) throw new WaitTimeoutError(await this.describe(this.handle(id), `settled within ${timeoutMs} ms`));
        looks.set(id, look);
      }
      const now = await this.treeIds(handle.id);
      let unchanged = now.length === ids.length && now.every((id) => looks.has(id));
      for (const id of ids) {
        if (!unchanged) break;
        unchanged = (await quietLook(this.env.client, await this.env.client.workflow.getHandle(id).describe())) === looks.get(id);
      }
      if (unchanged) {
        this.scripted?.assertNoProblems();
        return;
      }
      if (Date.now() >= deadline) throw new WaitTimeoutError(await this.describe(handle, `settled within ${timeoutMs} ms`));
    }
  }

  /**
   * Lets the session's tree settle, skips `duration` of workflow time (its loops, goals, cron jobs and waits fire as
   * they would), then settles again. On a dev server the time passes for real.
   */
  async fastForward(session: SessionRef, duration: Duration, bound: WaitBound = {}): Promise<void> {
    await this.settle(session, bound);
    await this.env.sleep(duration);
    await this.settle(session, bound);
  }

  async snapshot(session: SessionRef, bound: WaitBound = {}): Promise<SessionSnapshot> {
    const handle = this.handle(session);
    await this.readyToQuery(handle, bound);
    return handle.snapshot();
  }

  async transcript(session: SessionRef, bound: WaitBound = {}): Promise<TranscriptEntry[]> {
    const handle = this.handle(session);
    await this.readyToQuery(handle, bound);
    return handle.transcript();
  }

  /** The events the session has emitted so far (its bounded buffer), oldest first. */
  async events(session: SessionRef, bound: WaitBound = {}): Promise<SessionEvent[]> {
    const handle = this.handle(session);
    await this.readyToQuery(handle, bound);
    const events: SessionEvent[] = [];
    for await (const event of handle.events({ follow: false })) events.push(event);
    return events;
  }

  /**
   * Writes the session's history as JSON (the format `temporal workflow show --output json` writes), for
   * replayHistories. A session that continued as new has a history per run: they are written as `<file>.run-<n>.json`
   * (oldest first) and their paths returned.
   */
  async recordHistory(session: SessionRef, file: string): Promise<string[]> {
    const handle = this.handle(session);
    const runs: unknown[] = [];
    let runId: string | undefined;
    do {
      const history = await this.env.client.workflow.getHandle(handle.id, runId).fetchHistory();
      runs.unshift(history);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    } while (runId);
    const base = file.replace(/\.json$/, '');
    const paths = runs.length === 1 ? [file] : runs.map((_, index) => `${base}.run-${index + 1}.json`);
    for (const [index, history] of runs.entries()) {
      await writeFile(paths[index]!, historyToJSON(history as Parameters<typeof historyToJSON>[0]));
    }
    return paths;
  }

  /** Waits, within the bound, until no workflow task of the session is in flight, so a query cannot meet one. */
  private async readyToQuery(handle: SessionHandle, bound: WaitBound): Promise<void> {
    await whenNoWorkflowTask(this.env.client, handle.id, Date.now() + (bound.timeoutMs ?? this.defaultTimeoutMs));
  }

  private async decide(session: SessionRef, options: WaitBound & { toolName?: string }, answers: Answers): Promise<AnswerReceipt> {
    const what = options.toolName ? `an approval of ${options.toolName}` : 'an approval';
    const sets = await this.waitFor(session, `waiting for ${what}`, options, (snapshot) => {
      const waiting = snapshot.pending_questions.filter(
        (set) => set.approval && (!options.toolName || set.approval.tool_name === options.toolName),
      );
      return waiting.length > 0 ? waiting : undefined;
    });
    const set = sets[0]!;
    const question = set.questions[0]!.question;
    const [[, value]] = Object.entries(answers) as [[string, Answers[string]]];
    return this.handle(session).answer({ [question]: value }, { questionSetId: set.question_set_id });
  }

  private async waitFor<T>(
    session: SessionRef,
    what: string,
    bound: WaitBound,
    found: (snapshot: SessionSnapshot) => T | undefined,
  ): Promise<T> {
    const handle = this.handle(session);
    const timeoutMs = bound.timeoutMs ?? this.defaultTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.scripted?.assertNoProblems();
      if ((await whenNoWorkflowTask(this.env.client, handle.id, deadline)) === 'closed') {
        throw new SessionEndedError(await this.describe(handle, what));
      }
      const result = found(await handle.snapshot());
      if (result !== undefined) {
        this.scripted?.assertNoProblems();
        return result;
      }
      if (Date.now() >= deadline) throw new WaitTimeoutError(await this.describe(handle, `${what} after ${timeoutMs} ms`));
      await pause(50);
    }
  }

  /** What the session was doing, for an error: its status, what it waits for, its last events, the model's last request. */
  private async describe(handle: SessionHandle, expected: string): Promise<string> {
    const description = await this.env.client.workflow
      .getHandle(handle.id)
      .describe()
      .catch(() => undefined);
    const lines = [`Session ${handle.id} was not ${expected}.`];
    if (description && description.status.name !== 'RUNNING') lines.push(`Its workflow is ${description.status.name}.`);
    else {
      const snapshot = await handle.snapshot().catch(() => undefined);
      if (snapshot) {
        lines.push(`It is ${snapshot.status} in turn ${snapshot.turn}, with ${snapshot.queued_messages} queued message(s).`);
        if (snapshot.waiting)
          lines.push(`It waits until ${snapshot.waiting.until}${snapshot.waiting.reason ? ` (${snapshot.waiting.reason})` : ''}.`);
        for (const set of snapshot.pending_questions)
          lines.push(`Waiting for the user: ${set.questions.map((q) => q.question).join(' / ')}`);
        const running = snapshot.children.filter((child) => child.status === 'running');
        if (running.length > 0) lines.push(`Sub-agents still running: ${running.map((child) => child.title).join(', ')}.`);
        if (snapshot.last_error) lines.push(`Last error: ${snapshot.last_error}`);
      }
      const events = await this.recentEvents(handle);
      if (events.length > 0) lines.push(`Its last events: ${events.join('; ')}.`);
    }
    const last = this.scripted?.requests.at(-1);
    if (this.scripted) {
      lines.push(
        last
          ? `The scripted model received ${this.scripted.requests.length} request(s); the last, #${last.number}, for instruction ${JSON.stringify(last.instruction.slice(0, 80))}.`
          : 'The scripted model received no request.',
      );
    }
    return lines.join(' ');
  }

  private async recentEvents(handle: SessionHandle): Promise<string[]> {
    try {
      const events: string[] = [];
      for await (const event of handle.events({ follow: false })) events.push(event.type);
      return events.slice(-5);
    } catch {
      return [];
    }
  }

  private async treeIds(rootId: string): Promise<string[]> {
    const ids: string[] = [];
    const queue = [rootId];
    while (queue.length > 0) {
      const id = queue.shift()!;
      ids.push(id);
      const description = await this.env.client.workflow.getHandle(id).describe();
      for (const child of description.raw.pendingChildren ?? []) if (child.workflowId) queue.push(child.workflowId);
    }
    return ids;
  }

  protected handle(session: SessionRef): SessionHandle {
    return typeof session === 'string' ? new SessionHandle(session, this.env.client) : session;
  }
}
