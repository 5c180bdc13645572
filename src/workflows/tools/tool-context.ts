import type { SessionState } from '../session-state.js';

/** What a tool handler may use: the calling session's state and the id of the call it answers. */
export interface ToolContext {
  state: SessionState;
  toolCallId: string;
}
