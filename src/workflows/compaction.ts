import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { entriesAfterSummary, type CompactionReason, type CompactReceipt } from '../shared/compaction.js';
import { summaryCut } from '../shared/summary-cut.js';
import { utf8Length } from '../shared/utf8.js';
import type { SessionState } from './session-state.js';
import { hasChange } from './session-changes.js';
import { summaryBudgetRefusal } from './summary-budget.js';
import { carriedTranscriptBytes, carriedTranscriptEntries } from './transcript.js';
import type { ModelCursor } from './turn.js';

const { summarizeConversation } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  // Few attempts: a summary that cannot be written falls back to leaving the oldest messages out, as before.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** After a failed (or empty) automatic summary, how many more entries before the session tries again. */
const entriesBeforeRetry = 20;

/**
 * When and how the session replaces its older entries with a summary written by the model (`summarizeConversation`):
 * before a turn, when the previous model call had to leave messages out to fit the context window; as a run continues
 * as new with more transcript than it carries; and when the user asks (the `compact` update, between turns only).
 */
export class Compaction {
  /** Set while the summary activity runs: no turn starts meanwhile. */
  running = false;
  /** Set by the session's loop while a turn runs: the user's compaction is refused then. */
  turnRunning = false;
  /** The transcript length before which an automatic summary is not tried again (after one failed or found nothing). */
  private quietUntil = 0;

  constructor(
    private readonly state: SessionState,
    private readonly cursor: ModelCursor,
  ) {}

  /** Whether to summarize before the next model call. Asks the patch only when it would. */
  dueBeforeTurn(): boolean {
    return (this.cursor.fitted?.left_out_messages ?? 0) > 0 && this.mayTryAgain() && hasSummaryChange();
  }

  /**
   * Whether to summarize before continuing as new: the run holds more than half what a continue-as-new carries. Tried
   * even soon after a failed summary, since it is once a run and what it does not summarize is left behind.
   */
  dueBeforeContinueAsNew(): boolean {
    const shown = entriesAfterSummary(this.state.transcript.entries);
    if (shown.length <= carriedTranscriptEntries / 2 && bytesOf(shown) <= carriedTranscriptBytes / 2) return false;
    return hasSummaryChange();
  }

  /** The `compact` update's validator: why the user's compaction cannot run now, thrown as the update's failure. */
  check(): void {
    if (this.turnRunning) throw new Error('A turn is running; compact the session between turns (when it is idle).');
    if (this.running) throw new Error('The session is already being compacted.');
    if (summaryCut(this.state.transcript.entries, 'user', undefined) === null)
      throw new Error('Nothing to compact: every entry since the last summary belongs to the newest turn.');
  }

  /** Writes a summary entry; on failure, a notice saying that the old rule (leaving the oldest entries out) applies. */
  async run(reason: CompactionReason): Promise<CompactReceipt> {
    const { state, cursor } = this;
    this.running = true;
    const keepChars = cursor.fitted?.conversation_chars;
    const fallback =
      reason === 'continue_as_new'
        ? 'the oldest entries are left behind when the session continues as new, as before'
        : "the oldest messages are left out to fit the model's context window, as before";
    try {
      const refusal = await summaryBudgetRefusal(state);
      if (refusal !== null) {
        this.quietUntil = state.transcript.entries.length + entriesBeforeRetry;
        state.append({
          role: 'notice',
          content: `The conversation was not summarized, because the budget is spent; ${fallback}. ${refusal}`,
          turn: state.turn,
        });
        return { outcome: 'failed', reason: refusal };
      }
      // The activity's transcript cache is sent only what it has not seen: the refused call above sent nothing.
      const start = cursor.sent;
      cursor.sent = state.transcript.entries.length;
      const reply = await summarizeConversation.executeWithOptions({ summary: `summarize · ${reason} · ${state.settings.model}` }, [
        {
          session_id: state.identity.session_id,
          run_id: workflowInfo().runId,
          model: state.settings.model,
          reason,
          // Half the room: the kept turns then leave space for the summary, the pinned state and a few turns more.
          ...(keepChars !== undefined && reason !== 'user' ? { keep_chars: Math.floor(keepChars / 2) } : {}),
          transcript_start: start,
          transcript_delta: state.transcript.entries.slice(start),
        },
      ]);
      if ('nothing' in reply) {
        this.quietUntil = state.transcript.entries.length + entriesBeforeRetry;
        return { outcome: 'failed', reason: reply.nothing };
      }
      if (reply.usage) state.usage.record(reply.usage, 'model');
      const entry = state.append({
        role: 'summary',
        content: reply.summary,
        turn: state.turn,
        summary_of: { through_entry_id: reply.through_entry_id, entries: reply.entries, reason },
      });
      state.events.emit({
        type: 'notice',
        content: `${reply.entries} earlier transcript entries are replaced by a summary written by ${reply.model} (summary entry ${entry.id}).`,
      });
      cursor.fitted = undefined;
      return { outcome: 'summarized', summary_entry_id: entry.id, entries: reply.entries };
    } catch (error) {
      if (isCancellation(error)) throw error;
      const why = failureText(error);
      this.quietUntil = state.transcript.entries.length + entriesBeforeRetry;
      state.append({ role: 'notice', content: `Summarizing the conversation failed (${why}); ${fallback}.`, turn: state.turn });
      return { outcome: 'failed', reason: why };
    } finally {
      this.running = false;
    }
  }

  private mayTryAgain(): boolean {
    return this.state.transcript.entries.length >= this.quietUntil;
  }
}

function hasSummaryChange(): boolean {
  return hasChange('older-entries-summarized');
}

function failureText(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return cause.message;
  if (cause instanceof TimeoutFailure) return 'it timed out on every attempt';
  return cause instanceof Error ? cause.message : String(cause);
}

function bytesOf(entries: readonly { content: string }[]): number {
  let bytes = 0;
  for (const entry of entries) bytes += utf8Length(entry.content);
  return bytes;
}
