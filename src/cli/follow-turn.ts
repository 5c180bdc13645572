import { ArborClientError } from '../client/errors.js';
import { Interrupted } from './usage-error.js';
import type { SessionHandle } from '../client/session-handle.js';
import type { QuestionSet } from '../shared/tools/ask-user.js';
import { askOnTerminal, canPrompt } from './ask-questions.js';
import type { Output } from './output.js';
import { howToAnswer, renderTreeEvent } from './render-event.js';
import { startLiveText } from './live-text.js';

export interface FollowOptions {
  /** The message whose turn to follow (default: until the session has nothing queued). */
  messageId?: string;
  /** The root session's last event seq before the message was sent: events after it are shown. */
  afterEvent: number;
  /** The transcript length before the message was sent: the answer is the last assistant entry after it. */
  fromEntry: number;
  /** Question sets already waiting before the message was sent (their events are older than `afterEvent`). */
  pendingBefore?: QuestionSet[];
  timeoutSeconds?: number | undefined;
  /** Print the model's text as it is written (default true; off with --json). */
  stream?: boolean;
  /** The root's turn before the message was sent: text of later turns is shown live (default 0). */
  afterTurn?: number;
  /** Stops following at once, printing no answer (chat's Esc: the user is about to interrupt the turn). */
  leave?: AbortSignal;
}

/**
 * Shows a turn as it happens (every session of the tree, each line tagged with its sub-agent), asks the user the
 * questions that come up (interactively on a terminal, else printing the `arbor answer` command), then prints the
 * answer or, with --json, `{session_id, status, answer, error, snapshot}`. A turn that ended in an error exits 1.
 */
export async function followTurn(session: SessionHandle, output: Output, options: FollowOptions): Promise<void> {
  const stop = new AbortController();
  const timer = options.timeoutSeconds ? setTimeout(() => stop.abort(), options.timeoutSeconds * 1000) : undefined;
  options.leave?.addEventListener('abort', () => stop.abort(), { once: true });
  const questions = new QuestionDesk(session);
  const live = options.stream !== false && !output.json ? startLiveText(session, { afterTurn: options.afterTurn ?? 0 }) : undefined;
  try {
    if (!(await turnDone(session, options.messageId))) {
      await questions.handle(options.pendingBefore ?? [], stop.signal);
      const events = session.treeEvents({ after: options.afterEvent, runningSubAgents: 'now', signal: stop.signal });
      // The root's text is held until something follows it in its turn (a tool call) or a turn ends or begins after
      // it: it was then not the answer this command prints at the end, and is shown now. Only the last is the answer.
      const heldRootText: string[] = [];
      for await (const treeEvent of events) {
        const { event, session: from } = treeEvent;
        // Text shown as it was written is not shown again as a message.
        const shownLive =
          event.type === 'message' && event.role === 'assistant' && live?.streamed(from.id, event.content, event.truncated) === true;
        const lines = event.type === 'questions_asked' || shownLive ? [] : renderTreeEvent(treeEvent);
        if (from.depth === 0 && event.type === 'message' && event.role === 'assistant') {
          for (const line of heldRootText.splice(0, heldRootText.length, ...lines)) output.progress(line);
          continue;
        }
        if (from.depth === 0 && (event.type === 'tool_call' || event.type === 'message')) {
          for (const line of heldRootText.splice(0)) output.progress(line);
        }
        for (const line of lines) output.progress(line);
        live?.eventShown(from.id, event);
        if (event.type === 'questions_asked') {
          await questions.handle(
            [
              {
                question_set_id: event.question_set_id,
                session_id: from.id,
                session_title: from.title,
                questions: event.questions,
                asked_at: event.at,
                ...(event.approval ? { approval: event.approval } : {}),
              },
            ],
            stop.signal,
          );
        }
        if (from.depth === 0 && event.type === 'status_changed' && event.to !== 'running' && event.to !== 'waiting_for_user') {
          if (await turnDone(session, options.messageId)) break;
        }
      }
    }
  } finally {
    clearTimeout(timer);
    await live?.stop();
  }
  if (options.leave?.aborted) {
    live?.endLine();
    return;
  }
  if (stop.signal.aborted)
    throw new ArborClientError(
      `Session ${session.id} is still working after ${options.timeoutSeconds} s; arbor show ${session.id} tells how far it got.`,
    );

  const snapshot = await session.snapshot();
  const entries = await session.transcript({ offset: options.fromEntry });
  const answer =
    entries.filter((entry) => entry.role === 'assistant' && entry.content && !entry.tool_calls?.length).at(-1)?.content ?? null;
  for (const set of await session.pendingQuestions()) process.stderr.write(`${howToAnswer(set, session.id)}\n`);
  const error = snapshot.last_error;
  // The answer was printed as it was written: it only needs its line ended.
  const answerShown = !error && answer !== null && live?.lastRootText() === answer;
  live?.endLine();
  if (answerShown) return;
  output.result(
    { session_id: session.id, status: snapshot.status, answer, error, snapshot },
    error ? `Error: ${error}` : (answer ?? '(no answer)'),
  );
  if (error) process.exitCode = 1;
}

async function turnDone(session: SessionHandle, messageId: string | undefined): Promise<boolean> {
  const snapshot = await session.snapshot();
  if (snapshot.status === 'running' || snapshot.status === 'waiting_for_user') return false;
  return messageId === undefined ? snapshot.queued_messages === 0 : (await session.messageState(messageId)) === 'handled';
}

/** Each question set once: asked on the terminal when there is one, else printed with the command that answers it. */
class QuestionDesk {
  private readonly seen = new Set<string>();
  private readonly interactive = canPrompt();

  constructor(private readonly session: SessionHandle) {}

  async handle(sets: QuestionSet[], signal: AbortSignal): Promise<void> {
    for (const set of sets) {
      if (this.seen.has(set.question_set_id)) continue;
      this.seen.add(set.question_set_id);
      if (!this.interactive) {
        process.stderr.write(`${howToAnswer(set, this.session.id)}\n`);
        continue;
      }
      process.stderr.write(`"${set.session_title}" asks:\n`);
      for (;;) {
        let answers;
        try {
          answers = await askOnTerminal(set, signal);
        } catch (error) {
          if (!(error instanceof Error && error.name === 'ExitPromptError')) throw error;
          process.stderr.write(`\nThe question still waits. ${howToAnswer(set, this.session.id)}\n`);
          throw new Interrupted('interrupted at a question');
        }
        try {
          await this.session.answer(answers, { questionSetId: set.question_set_id });
          break;
        } catch (error) {
          if (!(error instanceof ArborClientError)) throw error;
          process.stderr.write(`${error.message}\n`);
          if (!(await this.session.pendingQuestions()).some((pending) => pending.question_set_id === set.question_set_id)) break;
        }
      }
    }
  }
}
