import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ArborClientError } from '../errors.js';
import { sessionWorkflowTypes } from '../session-id.js';

export type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** One run of a session, read from Temporal: its history and what its start event says. */
export interface SessionRun {
  runId: string;
  history: History;
  taskQueue: string;
  workflowType: string;
}

/** A session's runs, newest first: the current run, then each run it continued from (continue-as-new). */
export async function* sessionRuns(client: Client, sessionId: string): AsyncGenerator<SessionRun> {
  let runId: string | undefined;
  try {
    runId = (await client.workflow.getHandle(sessionId).describe()).runId;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new ArborClientError(`There is no session ${sessionId}.`);
    throw error;
  }
  while (runId) {
    const history: History = await client.workflow.getHandle(sessionId, runId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!started) throw new ArborClientError(`The history of session ${sessionId} (run ${runId}) has no start event.`);
    if (!sessionWorkflowTypes.includes(started.workflowType?.name ?? ''))
      throw new ArborClientError(`${sessionId} is not an Arbor session (its workflow type is ${started.workflowType?.name}).`);
    yield { runId, history, taskQueue: started.taskQueue?.name ?? '', workflowType: started.workflowType?.name ?? '' };
    runId = started.continuedExecutionRunId || undefined;
  }
}
