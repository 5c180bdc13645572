import { automationCreate, automationRunEnqueue, automationRunGet, automationRunWait, automationUpdate } from './automations.js';

/**
 * The automation tools: they act on the owner's schedules, which outlive the session tree, so a sub-agent gets them
 * only when its parent names them in `subAgent`'s `tools`.
 */
export const automationToolNames: readonly string[] = [
  automationCreate.name,
  automationUpdate.name,
  automationRunEnqueue.name,
  automationRunGet.name,
  automationRunWait.name,
];

/**
 * The tools a sub-agent is not given when its parent's `subAgent` call names none (the rtc rule). A tool profile
 * with other fixed removals passes its own list to `defaultSubAgentTools`.
 */
export const withheldFromSubAgentsByDefault: readonly string[] = automationToolNames;

/** The tools a sub-agent gets when its parent names none: the parent's own, less those `withheld`. */
export function defaultSubAgentTools(
  parentTools: readonly string[],
  withheld: readonly string[] = withheldFromSubAgentsByDefault,
): string[] {
  return parentTools.filter((name) => !withheld.includes(name));
}
