import type { SessionEnvironment } from '../shared/model.js';
import type { SessionInput } from '../shared/session.js';
import { automationIdOfRun } from '../shared/tools/automations.js';
import { servedTools } from './deployment-settings.js';
import type { SessionState } from './session-state.js';

/** Whether the session is an automation's run: a root session that ends when done, as schedules start them, or with a run's id. */
export function isAutomationRun(state: SessionState, input: SessionInput): boolean {
  if (!state.isRoot()) return false;
  return input.ends_when_done === true || automationIdOfRun(state.identity.session_id) !== undefined;
}

/**
 * An automation run withholds the tools of its worker's administrator list (`automation_disallowed_tools`) from
 * itself, whatever its automation named: they join the tools its deployment does not serve, which it carries across
 * continue-as-new and hands to its sub-agents. Those it would otherwise have had are named in a notice.
 */
export function withholdAdministratorsTools(state: SessionState, environment: SessionEnvironment, input: SessionInput): void {
  const disallowed = environment.automation_disallowed_tools ?? [];
  if (disallowed.length === 0 || !isAutomationRun(state, input)) return;
  const before = servedTools(state.settings, state.profile).filter((name) => (input.tools ? input.tools.includes(name) : true));
  const unavailable = [...state.settings.unavailableTools, ...disallowed.filter((name) => !state.settings.unavailableTools.includes(name))];
  state.settings = { ...state.settings, unavailableTools: unavailable };
  const withheld = before.filter((name) => disallowed.includes(name));
  if (withheld.length === 0) return;
  state.append({
    role: 'notice',
    content: `This automation run goes on without ${withheld.join(', ')}: the worker's administrator list (automationDisallowedTools) allows no automation run to use them.`,
    turn: state.turn,
  });
}
