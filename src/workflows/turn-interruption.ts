import { CancellationScope, getExternalWorkflowHandle } from '@temporalio/workflow';
import { interruptionNotice } from './interruption-notice.js';
import { hasChange } from './session-changes.js';
import type { SessionState } from './session-state.js';
import type { StreamRing } from './stream-ring.js';

/** What a message sent with mode `interrupt` asked for. */
export interface InterruptRequest {
  message_id: string;
  stop_sub_agents: boolean;
}

/**
 * The running turn, as an interrupt message can end it. In a session started `interruptible` (the SDK's sessions),
 * each turn runs in a cancellation scope of its own, which an interrupt cancels: the model call in flight, activities
 * of tool calls and the waits of in-workflow tools end at once, and the turn ends as `interrupted`. Sub-agents are
 * started outside that scope, so they keep running. Sessions started without the option (recorded histories among
 * them) run their turns as before, in the session's own scope, so their commands replay unchanged.
 */
export class TurnInterruption {
  private scope: CancellationScope | null = null;
  private readonly sessionScope = CancellationScope.current();
  /** Set once the running turn is interrupted; cleared as the next turn begins. */
  request: InterruptRequest | null = null;
  /** Filled in by the turn as it ends interrupted. */
  modelCallCancelled = false;
  toolCallsCancelled: string[] = [];
  toolCallsDropped: string[] = [];
  /** Calls that cannot be cancelled where they run: the interrupt waited for their results (see `keepThroughInterrupt`). */
  toolCallsWaitedFor: string[] = [];
  round = 0;

  constructor(readonly enabled: boolean) {}

  /** Runs a turn, in a scope of its own when the session is interruptible. Not async: see `budgetRefusal`. */
  run<T>(turn: () => Promise<T>): Promise<T> {
    if (!this.enabled) return turn();
    this.request = null;
    this.modelCallCancelled = false;
    this.toolCallsCancelled = [];
    this.toolCallsDropped = [];
    this.toolCallsWaitedFor = [];
    this.round = 0;
    const scope = new CancellationScope();
    this.scope = scope;
    return scope.run(turn).then(
      (outcome) => {
        this.scope = null;
        return outcome;
      },
      (error: unknown) => {
        this.scope = null;
        throw error;
      },
    );
  }

  /** Runs `start` outside the turn's scope (sub-agent starts), so an interrupt does not cancel what it starts. */
  outsideTurn<T>(start: () => Promise<T>): Promise<T> {
    return this.enabled ? this.sessionScope.run(start) : start();
  }

  /**
   * A wait of the running turn on what runs outside its scope (a sync sub-agent's end), ended by an interrupt with
   * the turn's cancellation. The same promise where there is no turn scope.
   */
  untilInterrupted<T>(wait: Promise<T>): Promise<T> {
    if (!this.scope) return wait;
    const raced = Promise.race([wait, this.scope.cancelRequested as Promise<never>]);
    // Handled here as well: a caller that never awaits it (an async sub-agent) leaves no unhandled rejection.
    raced.catch(() => undefined);
    return raced;
  }

  /**
   * A call of the running turn whose activity cannot be cancelled where it runs (it never heartbeats), scheduled with
   * `WAIT_CANCELLATION_COMPLETED` so that a cancellation request does not resolve it. An interrupt waits for its result,
   * which the turn keeps as the tool's answer; the activity's start-to-close timeout bounds the wait. A stop of the
   * session ends the wait at once, and so does an interrupt in a replay of a history from before the change (which
   * read the call as cancelled): both as the call's cancellation. Not async: see `budgetRefusal`.
   */
  keepThroughInterrupt<T>(call: Promise<T>, name: string): Promise<T> {
    const scope = this.scope;
    if (!scope) return call;
    let running = true;
    call.then(
      () => (running = false),
      () => (running = false),
    );
    const cutShort = scope.cancelRequested.then<never, never>(undefined, (reason: unknown) => {
      if (!running || !this.interrupted() || !hasChange('interrupt-waits-for-uncancellable-tool-calls')) throw reason;
      this.toolCallsWaitedFor.push(name);
      return this.sessionScope.cancelRequested as Promise<never>;
    });
    return Promise.race([call, cutShort]);
  }

  /** Whether a turn is running that an interrupt can end now. */
  turnRunning(): boolean {
    return this.scope !== null && this.request === null;
  }

  /** Whether the running turn's cancellation is this interrupt's, not the session being stopped. */
  interrupted(): boolean {
    return this.request !== null && !this.sessionScope.consideredCancelled;
  }

  /** Ends the running turn; false when there is none to end (the message is then simply queued). */
  interrupt(request: InterruptRequest): boolean {
    if (!this.scope || this.request !== null) return false;
    this.request = request;
    this.scope.cancel();
    return true;
  }
}

/** What the session records once a turn ended interrupted: a notice, a `turn_interrupted` event and stream item. */
export async function recordInterruption(state: SessionState, interruption: TurnInterruption, stream: StreamRing): Promise<void> {
  const request = interruption.request;
  if (!request) return;
  const running = request.stop_sub_agents ? state.runningChildren() : [];
  // Their handles (or, for those of earlier runs, their finish signals) record each as stopped.
  await Promise.allSettled(running.map((child) => getExternalWorkflowHandle(child.sub_session_id).cancel()));
  const keepRunning = !request.stop_sub_agents && state.runningChildren().length > 0;
  state.append({
    role: 'notice',
    content: interruptionNotice({
      turn: state.turn,
      modelCallCancelled: interruption.modelCallCancelled,
      toolCallsCancelled: interruption.toolCallsCancelled,
      toolCallsDropped: interruption.toolCallsDropped,
      toolCallsWaitedFor: interruption.toolCallsWaitedFor,
      subAgentsStopped: running.length,
      subAgentsKeepRunning: keepRunning,
    }),
    turn: state.turn,
  });
  state.events.emit({
    type: 'turn_interrupted',
    turn: state.turn,
    message_id: request.message_id,
    model_call_cancelled: interruption.modelCallCancelled,
    tool_calls_cancelled: interruption.toolCallsCancelled,
    ...(interruption.toolCallsWaitedFor.length > 0 ? { tool_calls_waited_for: interruption.toolCallsWaitedFor } : {}),
    sub_agents_stopped: running.length,
  });
  stream.push({ type: 'turn_interrupted', turn: state.turn, round: interruption.round });
}

/** The result a tool call of an interrupted round reads, for the model's next turn. */
export const interruptedToolResult = 'Interrupted: the user sent a new message, and this call was cancelled before it finished.';
