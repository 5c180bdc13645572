import { findTool } from '../../shared/tools/registry.js';
import { findHostTool, type DeploymentSettings } from '../deployment-settings.js';
import type { SessionState } from '../session-state.js';
import type { ProfileName } from '../../shared/tools/profiles/names.js';

/** Whether a tool is marked destructive: a built-in one declared so, or a host tool of the session's catalogue defined so. */
export function isDestructive(name: string, settings: DeploymentSettings): boolean {
  const builtIn = findTool(name);
  if (builtIn) return builtIn.destructive;
  return findHostTool(settings, name)?.destructive === true;
}

/** Where a session of each profile writes down what it plans: the plan tool of its profile, or what stands in for one. */
const planPlace: Record<ProfileName, string> = {
  all: 'the plan (planWrite)',
  soai: 'the plan (plan_write)',
  rtc: 'the todo list (todoWrite)',
  claurst: 'the task board (TaskCreate)',
};

const planWith: Record<ProfileName, string> = {
  all: 'with planWrite',
  soai: 'with plan_write',
  rtc: 'in the todo list (todoWrite)',
  claurst: 'on the task board (TaskCreate)',
};

/** The tool error of a destructive tool called in Plan mode. */
export function planModeRefusal(name: string, profile: ProfileName = 'all'): string {
  return (
    `${name} is marked destructive (it changes things outside this conversation), and this session is in Plan mode, ` +
    `so the call did not run. Put the step in ${planPlace[profile]} instead: it runs once the user executes the plan.`
  );
}

/** The tools the model is shown: in Plan mode, the session's tools less the destructive ones, which would not run. */
export function offeredTools(state: SessionState, toolNames: readonly string[]): string[] {
  if (state.workMode !== 'plan') return [...toolNames];
  return toolNames.filter((name) => !isDestructive(name, state.settings));
}

/** What the system prompt says in Plan mode (nothing in Execute mode), naming the tools held back. */
export function planModeNote(state: SessionState, toolNames: readonly string[]): string {
  if (state.workMode !== 'plan') return '';
  const held = toolNames.filter((name) => isDestructive(name, state.settings));
  return (
    `\n\nThis session is in Plan mode: research, then write the finished plan ${planWith[state.profile]} and give a short summary ` +
    'in your answer. Tools that change things outside this conversation do not run until the user executes the plan' +
    (held.length > 0 ? `; held back until then: ${held.join(', ')}.` : '.') +
    ' Sub-agents you start are in Plan mode too.'
  );
}
