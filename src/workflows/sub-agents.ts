import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  getExternalWorkflowHandle,
  ChildWorkflowFailure,
  ParentClosePolicy,
  isCancellation,
  startChild,
  uuid4,
  workflowInfo,
  type ChildWorkflowHandle,
  type Workflow,
} from '@temporalio/workflow';
import { identityAttributes } from './identity-attributes.js';
import { neutralTitle } from '../shared/neutral-title.js';
import { hasBuiltInChanges, hasChange } from './session-changes.js';
import {
  childFinalMessageChars,
  closedStatuses,
  type SessionInput,
  type SessionResult,
  type SessionStatus,
  type SubAgentFinished,
} from '../shared/session.js';
import { eventTextLimits } from '../shared/events.js';
import { shorten } from './event-log.js';
import { subAgentNoticePrefix } from '../shared/message-sources.js';
import { environmentFor } from './deployment-settings.js';

/** The message id prefix of a finished async sub-agent's notice to its parent. */
import type { SubAgentMode } from '../shared/tools/sub-agents.js';
import type { ToolReply } from '../shared/tool-reply.js';
import type { SessionState } from './session-state.js';
import type { WorkMode } from '../shared/work-modes.js';

export interface SpawnRequest {
  title: string;
  instruction: string;
  mode: SubAgentMode;
  /** Absent: every tool the deployment serves. */
  tools: string[] | undefined;
  system_prompt?: string | undefined;
  max_turns?: number | undefined;
  model: string;
  /** A name for messaging (SendMessage), recorded on the child. */
  name?: string | undefined;
  /** Plan mode for the child even when its parent is in Execute mode (soai's subagent_spawn `mode`). */
  work_mode?: WorkMode | undefined;
}

export interface SubAgentLimits {
  maxDepth: number;
  maxChildren: number;
  /** The session's `history_limit`, handed down so the whole tree continues as new alike. */
  historyLimit?: number | undefined;
  /** The tree's `sub_agent_budget`, handed down: each sub-agent's own limits. */
  subAgentBudget?: { max_tokens?: number | undefined; max_cost_usd?: number | undefined } | undefined;
  /** The session's `neutral_titles`, handed down: sub-agents show the neutral title where Temporal shows it in the clear. */
  neutralTitles?: boolean | undefined;
  /** The session's turns may be interrupted: so may its sub-agents' (a sub-agent of such a session is new data). */
  interruptible?: boolean | undefined;
}

/**
 * The sub-agents a session started in this run: child workflows whose completion is observed here. An async child's
 * end is queued for the parent as a notice exactly once (Temporal delivers the child's close event once; the notice
 * id dedupes across replays); a sync child's end is the tool result.
 */
export class SubAgents {
  private readonly pending = new Map<string, Promise<void>>();
  /** Sub-agents asked for whose child workflows have not started yet: calls in one round start them concurrently. */
  private starting = 0;
  /** Where child workflows start: outside an interruptible turn's scope (see TurnInterruption), so they outlive an interrupt. */
  startOutsideTurn: <T>(start: () => Promise<T>) => Promise<T> = (start) => start();
  /** How the running turn waits for a child's end: ended by an interrupt in an interruptible session (see TurnInterruption). */
  waitInTurn: <T>(end: Promise<T>) => Promise<T> = (end) => end;

  constructor(
    private readonly state: SessionState,
    private readonly limits: SubAgentLimits,
    /** Told of each sub-agent as it starts (the live stream announces it; memory only, no command). */
    private readonly onStarted: (child: { sub_session_id: string; title: string }) => void = () => {},
  ) {}

  /** Whether the session may start one more sub-agent; refused, with a message for the model, when a limit says no. */
  checkLimits(): ToolReply<void> {
    const { depth } = this.state.identity;
    if (depth + 1 > this.limits.maxDepth) {
      return {
        ok: false,
        error: `Sub-agents may nest at most ${this.limits.maxDepth} levels below the root session; this session is at depth ${depth}. Do the work here instead.`,
      };
    }
    const running = this.state.runningChildren().length;
    let counted = running;
    // Sub-agents still starting count too (newer runs: older ones let one round's parallel calls past the limit).
    if (
      running < this.limits.maxChildren &&
      running + this.starting >= this.limits.maxChildren &&
      hasChange('sub-agent-limit-counts-starting')
    ) {
      counted += this.starting;
    }
    if (counted >= this.limits.maxChildren) {
      return {
        ok: false,
        error: `This session already runs ${counted} sub-agents, the most it may run at once (${this.limits.maxChildren}). Wait for some to finish or stop them.`,
      };
    }
    return { ok: true, result: undefined };
  }

  /**
   * Starts a child session; resolves once it has started, with its id and the promise of its end. Not async (issue 32):
   * what follows the start runs in one `then`, where the async function's promise and its await were two promises the
   * SDK captures a stack trace for, at the same point (one step after the start settles); a throw rejects, at once.
   */
  spawn(request: SpawnRequest): Promise<{ id: string; finished: Promise<SessionResult | 'stopped'> }> {
    try {
      return this.start(request);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private start(request: SpawnRequest): Promise<{ id: string; finished: Promise<SessionResult | 'stopped'> }> {
    const { identity } = this.state;
    const id = uuid4();
    const input: SessionInput = {
      instruction: request.instruction,
      title: request.title,
      model: request.model,
      tools: request.tools,
      mode: request.mode,
      parent_session_id: identity.session_id,
      root_session_id: identity.root_session_id,
      owner: identity.owner,
      ancestor_session_ids: [...identity.ancestor_session_ids, identity.session_id],
      max_depth: this.limits.maxDepth,
      max_children: this.limits.maxChildren,
      ...(this.limits.historyLimit !== undefined ? { history_limit: this.limits.historyLimit } : {}),
      // Only when not the default, so the sub-agents of sessions without approvals start as they did.
      ...(this.state.approvalPolicy !== 'ask' ? { approval: this.state.approvalPolicy } : {}),
      // A Plan-mode parent starts Plan-mode sub-agents only, so delegating cannot get round the destructive tools.
      ...(this.state.workMode === 'plan' || request.work_mode === 'plan' ? { work_mode: 'plan' as const } : {}),
      // Sub-agents have their parent's tool profile; left out at `all`, which a session has when it names none.
      ...(this.state.profile !== 'all' ? { profile: this.state.profile } : {}),
      ...(request.system_prompt !== undefined ? { system_prompt: request.system_prompt } : {}),
      ...(request.max_turns !== undefined ? { max_tool_rounds: request.max_turns } : {}),
      ...(hasBuiltInChanges() ? { environment: environmentFor(this.state.settings, request.model) } : {}),
      ...this.budgetOfChild(),
      ...(this.limits.neutralTitles ? { neutral_titles: true as const } : {}),
      ...(this.limits.interruptible ? { interruptible: true } : {}),
    };
    // Only for a session given `neutral_titles`, an input no recorded history holds: no patch needed.
    const visibleTitle = this.limits.neutralTitles ? neutralTitle : request.title;
    // Newer sub-agents outlive their parent's run, so the parent can continue as new while they work; they tell the
    // parent (by its id, whichever run it is in) when they finish, and a stop cancels them explicitly, leaves first.
    const outlivesRun = hasChange('sub-agents-outlive-continue-as-new');
    this.starting += 1;
    let started: Promise<ChildWorkflowHandle<Workflow>>;
    try {
      // A sub-agent runs its parent's workflow type (this run's: arborSessionV2 once an older session has continued as
      // new), so a tree started before arborSession replays unchanged.
      started = this.startOutsideTurn(() =>
        startChild(workflowInfo().workflowType, {
          workflowId: id,
          args: [input],
          staticSummary: visibleTitle,
          // Stopping a session waits for its children to stop first: leaves, then parents.
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          parentClosePolicy: outlivesRun ? ParentClosePolicy.ABANDON : ParentClosePolicy.REQUEST_CANCEL,
          // Visible in its tree from its first moment, and the child saves the upsert (and its history event).
          ...(this.state.settings.searchAttributes
            ? {
                typedSearchAttributes: identityAttributes(
                  { root_session_id: identity.root_session_id, parent_session_id: identity.session_id, title: visibleTitle },
                  'idle',
                ),
              }
            : {}),
        }),
      );
    } catch (error) {
      this.starting -= 1;
      throw error;
    }
    return started.then(
      (handle) => {
        this.starting -= 1;
        return this.started(handle, id, request, outlivesRun);
      },
      (error: unknown) => {
        this.starting -= 1;
        throw error;
      },
    );
  }

  /** A child has started: recorded, announced, and its end observed. */
  private started(
    handle: ChildWorkflowHandle<Workflow>,
    id: string,
    request: SpawnRequest,
    outlivesRun: boolean,
  ): { id: string; finished: Promise<SessionResult | 'stopped'> } {
    const now = new Date().toISOString();
    this.state.children.push({
      sub_session_id: id,
      title: request.title,
      mode: request.mode,
      status: 'running',
      created_at: now,
      updated_at: now,
      final_message: null,
      ...(outlivesRun ? { outlives_run: true } : {}),
      ...(request.name !== undefined ? { name: request.name } : {}),
    });
    this.state.events.emit({ type: 'sub_agent_started', sub_session_id: id, title: request.title, mode: request.mode });
    this.onStarted({ sub_session_id: id, title: request.title });
    const finished = (handle.result() as Promise<SessionResult>).then(
      (result) => {
        this.finish({
          sub_session_id: id,
          status: result.status,
          final_message: result.final_message,
          ...(result.error ? { error: result.error } : {}),
        });
        return result;
      },
      (error: unknown) => {
        if (isStoppedChild(error)) {
          this.finish({ sub_session_id: id, status: 'stopped', final_message: null });
          return 'stopped' as const;
        }
        this.finish({ sub_session_id: id, status: 'failed', final_message: null });
        throw error;
      },
    );
    this.pending.set(
      id,
      finished.then(
        () => undefined,
        () => undefined,
      ),
    );
    // An async sub-agent's end is not waited for in the turn: no race with the turn's cancellation to build.
    const waited = request.mode === 'async' ? finished : this.waitInTurn(finished);
    // A sync wait an interrupt ended: the sub-agent goes on, and its end is reported as an async one's is.
    if (waited !== finished) waited.catch((error: unknown) => isCancellation(error) && this.state.updateChild(id, { mode: 'async' }));
    return { id, finished: waited };
  }

  /**
   * A child has ended, as seen by this run's handle or told by the child's own signal (which also reaches a later run
   * of this session); whichever comes first counts, once. An async child's end is queued as a notice.
   */
  finish(report: SubAgentFinished): void {
    const child = this.state.children.find((candidate) => candidate.sub_session_id === report.sub_session_id);
    if (!child || closedStatuses.includes(child.status)) return;
    this.ended(child.sub_session_id, child.title, report.status, report.final_message);
    if (child.mode !== 'async') return;
    if (report.status === 'failed')
      this.notifyFailure(child.sub_session_id, child.title, typeof report.error === 'string' ? report.error : undefined);
    else if (report.status !== 'stopped')
      this.notify(child.sub_session_id, child.title, {
        session_id: child.sub_session_id,
        status: report.status,
        final_message: report.final_message,
      });
  }

  /**
   * Waits (even while the session is being stopped) until every child has ended: those started in this run end with
   * it (their handles are cancelled with it); those carried from an earlier run are cancelled here, and their own
   * finish signals say when they are done.
   */
  async settle(): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      await Promise.allSettled([...this.pending.values()]);
      const inherited = this.state.runningChildren().filter((child) => !this.pending.has(child.sub_session_id));
      if (inherited.length === 0) return;
      await Promise.allSettled(inherited.map((child) => getExternalWorkflowHandle(child.sub_session_id).cancel()));
      await condition(() => this.state.runningChildren().length === 0, '10 minutes');
    });
  }

  /** A child draws from its root's budget when the tree has one, and has the tree's sub-agent limits for its own calls. */
  private budgetOfChild(): Pick<SessionInput, 'draws_from_root' | 'sub_agent_budget' | 'max_tokens' | 'max_cost_usd'> {
    const limits = this.limits.subAgentBudget;
    return {
      ...(this.state.usage.treeHasBudget() ? { draws_from_root: true as const } : {}),
      ...(limits ? { sub_agent_budget: limits, ...limits } : {}),
    };
  }

  /** Whether every running child may outlive this run, so the session can continue as new now. */
  canContinueAsNew(): boolean {
    const running = this.state.runningChildren();
    if (running.length === 0) return true;
    return running.every((child) => child.outlives_run === true) && hasChange('continue-as-new-with-running-sub-agents');
  }

  /** Records a child's end; question sets still listed for its branch are dropped, since nobody there waits any more. */
  private ended(id: string, title: string, status: SessionStatus, finalMessage: string | null): void {
    // The record keeps the start of the final message (it is in every snapshot, and carried); the sub-agent has it all.
    this.state.updateChild(id, {
      status,
      final_message: finalMessage === null ? null : shorten(finalMessage, childFinalMessageChars).text,
    });
    const { text, truncated } = shorten(finalMessage ?? '', eventTextLimits.message);
    this.state.events.emit({
      type: 'sub_agent_finished',
      sub_session_id: id,
      title,
      status,
      final_message: finalMessage === null ? null : text,
      ...(truncated ? { truncated } : {}),
    });
    this.state.dropTreeQuestionsOf(id);
  }

  private notify(id: string, title: string, result: SessionResult): void {
    this.state.enqueue({
      id: `${subAgentNoticePrefix}${id}`,
      content:
        `[Sub-agent notice] Sub-agent "${title}" (sub_session_id ${id}) finished with status ${result.status}. ` +
        `Its final message:\n${result.final_message ?? '(no message)'}`,
      source: 'sub-agent',
    });
  }

  private notifyFailure(id: string, title: string, error: string | undefined): void {
    this.state.enqueue({
      id: `${subAgentNoticePrefix}${id}`,
      content:
        `[Sub-agent notice] Sub-agent "${title}" (sub_session_id ${id}) failed before it finished.` +
        (error ? ` Its error: ${error.slice(0, 2_000)}` : ''),
      source: 'sub-agent',
    });
  }
}

/** A child that ended by Temporal cancellation: it, or a session above it, was stopped. */
function isStoppedChild(error: unknown): boolean {
  return error instanceof ChildWorkflowFailure && isCancellation(error);
}
