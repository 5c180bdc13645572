import { hostToolNamePattern } from '../shared/host-tools.js';

/** The environment variable that names the tools no automation run may use (the `arbor worker` form of the worker option). */
export const automationDisallowedToolsVariable = 'ARBOR_AUTOMATION_DISALLOWED_TOOLS';

/**
 * The administrator's list of tools no automation run may use, checked so a typo fails at worker start: each name is
 * one a tool can have (a built-in tool's, or a host tool's, of this worker or another). Duplicates count once.
 */
export function checkAutomationDisallowedTools(names: readonly string[], source = 'automationDisallowedTools'): string[] {
  const invalid = names.filter((name) => !hostToolNamePattern.test(name));
  if (invalid.length > 0) {
    throw new Error(
      `${source}: ${invalid.map((name) => JSON.stringify(name)).join(', ')} cannot be a tool name ` +
        '(1-64 letters, digits, underscores or hyphens).',
    );
  }
  return [...new Set(names)];
}

/** The list from ARBOR_AUTOMATION_DISALLOWED_TOOLS (comma-separated); unset or empty: none. */
export function automationDisallowedToolsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env[automationDisallowedToolsVariable]?.trim();
  if (!raw) return [];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return checkAutomationDisallowedTools(names, automationDisallowedToolsVariable);
}
