import type { SessionStatus } from '../../shared/session.js';
import type { SessionState } from '../session-state.js';
import type { SubAgents } from '../sub-agents.js';
import type { TurnInterruption } from '../turn-interruption.js';

/** What a tool handler may use: the calling session's state, its sub-agents, its tool set, and the call it answers. */
export interface ToolContext {
  state: SessionState;
  subAgents: SubAgents;
  toolNames: readonly string[];
  toolCallId: string;
  /**
   * Names this call durably: the session id and the call's place (turn, round, index), never the run id, so it is
   * the same on every retry and replay, across continue-as-new and resets. Tools with side effects use it as their
   * idempotency key.
   */
  stepKey: string;
  /** Sets the session's status and its search attribute (askUser pauses the session as `waiting_for_user`). */
  reportStatus: (status: SessionStatus) => void;
  /** A host tool call runs without asking anyone, its activity scheduled next: a `running` its round held back is written. */
  callProceeds: () => void;
  /** How an interrupt ends the running turn: a host tool call that cannot be cancelled is waited for (absent in unit tests). */
  interruption?: TurnInterruption;
}
