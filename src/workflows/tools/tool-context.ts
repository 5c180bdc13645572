import type { SessionState } from '../session-state.js';
import type { SubAgents } from '../sub-agents.js';

/** What a tool handler may use: the calling session's state, its sub-agents, its tool set, and the call it answers. */
export interface ToolContext {
  state: SessionState;
  subAgents: SubAgents;
  toolNames: readonly string[];
  toolCallId: string;
}
