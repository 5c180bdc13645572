import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ArborClientError } from '../errors.js';
import { sessionWorkflowTypes } from '../session-id.js';
import { concurrencyLimit } from './concurrency.js';

export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** One run of a session, read from Temporal: its history and what its start event says. */
export interface SessionRun {
  runId: string;
  history: History;
  taskQueue: string;
  workflowType: string;
  /** The run it continued from (continue-as-new), if any. */
  continuedFrom?: string;
}

/**
 * The history reads of one fork, at most `forkConcurrency` at a time. The current runs of sessions the fork will
 * probably read (the sub-agents a root's history started and has not seen end) can be read ahead, while the root
 * replays; a later `runs()` of such a session takes the read already under way.
 */
export class HistoryReads {
  private readonly limited = concurrencyLimit();
  private readonly ahead = new Map<string, Promise<SessionRun>>();

  constructor(private readonly client: Client) {}

  /** Starts reading the current run of each of these sessions; what fails here fails again, and is told, in `runs()`. */
  readAhead(sessionIds: readonly string[]): void {
    for (const id of sessionIds) {
      if (this.ahead.has(id)) continue;
      const read = this.currentRun(id);
      read.catch(() => undefined);
      this.ahead.set(id, read);
    }
  }

  /** A session's runs, newest first: the current run, then each run it continued from (continue-as-new). */
  async *runs(sessionId: string): AsyncGenerator<SessionRun> {
    const ahead = this.ahead.get(sessionId);
    this.ahead.delete(sessionId);
    let run: SessionRun | undefined = await (ahead ?? this.currentRun(sessionId));
    while (run) {
      yield run;
      run = run.continuedFrom ? await this.run(sessionId, run.continuedFrom) : undefined;
    }
  }

  private currentRun(sessionId: string): Promise<SessionRun> {
    return this.limited(async () => {
      let runId: string;
      try {
        runId = (await this.client.workflow.getHandle(sessionId).describe()).runId;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`There is no session ${sessionId}.`);
        throw error;
      }
      return this.fetch(sessionId, runId);
    });
  }

  private run(sessionId: string, runId: string): Promise<SessionRun> {
    return this.limited(() => this.fetch(sessionId, runId));
  }

  private async fetch(sessionId: string, runId: string): Promise<SessionRun> {
    const history: History = await this.client.workflow.getHandle(sessionId, runId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!started) throw new ArborClientError(`The history of session ${sessionId} (run ${runId}) has no start event.`);
    if (!sessionWorkflowTypes.includes(started.workflowType?.name ?? ''))
      throw new ArborClientError(`${sessionId} is not an Arbor session (its workflow type is ${started.workflowType?.name}).`);
    return {
      runId,
      history,
      taskQueue: started.taskQueue?.name ?? '',
      workflowType: started.workflowType?.name ?? '',
      ...(started.continuedExecutionRunId ? { continuedFrom: started.continuedExecutionRunId } : {}),
    };
  }
}

/** The sub-agents a run started whose end its history has not recorded: those a fork of it will likely read. */
export function childrenStillRunning(run: SessionRun): string[] {
  const started = new Set<string>();
  for (const event of run.history.events ?? []) {
    const initiated = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (initiated) started.add(initiated);
    const ended =
      event.childWorkflowExecutionCompletedEventAttributes ??
      event.childWorkflowExecutionFailedEventAttributes ??
      event.childWorkflowExecutionCanceledEventAttributes ??
      event.childWorkflowExecutionTerminatedEventAttributes ??
      event.childWorkflowExecutionTimedOutEventAttributes;
    const endedId = ended?.workflowExecution?.workflowId;
    if (endedId) started.delete(endedId);
  }
  return [...started];
}
