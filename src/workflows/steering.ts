import type { SessionState } from './session-state.js';

/**
 * Takes messages sent with mode `steer` into the running turn, as user messages the next model call shows the model.
 * Called before each model call after a tool round; a steer message the turn ends before is the next turn's message.
 */
export function takeSteerMessages(state: SessionState): void {
  if (!state.inbox.some((message) => message.steer)) return;
  const steered = state.inbox.filter((message) => message.steer);
  state.inbox = state.inbox.filter((message) => !message.steer);
  for (const message of steered) state.append({ id: message.id, role: 'user', content: message.content, turn: state.turn });
}
