import { describe, expect, it } from 'vitest';
import { automationDisallowedToolsFromEnv, checkAutomationDisallowedTools } from '../../src/activities/automation-disallowed-tools.js';

describe("the administrator's list of tools no automation run may use", () => {
  it('reads ARBOR_AUTOMATION_DISALLOWED_TOOLS as comma-separated names, once each, and unset as none', () => {
    expect(automationDisallowedToolsFromEnv({ ARBOR_AUTOMATION_DISALLOWED_TOOLS: ' shell, webFetch ,,shell' })).toEqual([
      'shell',
      'webFetch',
    ]);
    expect(automationDisallowedToolsFromEnv({})).toEqual([]);
    expect(automationDisallowedToolsFromEnv({ ARBOR_AUTOMATION_DISALLOWED_TOOLS: '  ' })).toEqual([]);
  });

  it('refuses a name no tool can have, naming where it came from', () => {
    expect(() => automationDisallowedToolsFromEnv({ ARBOR_AUTOMATION_DISALLOWED_TOOLS: 'shell,rm -rf' })).toThrow(
      'ARBOR_AUTOMATION_DISALLOWED_TOOLS: "rm -rf" cannot be a tool name (1-64 letters, digits, underscores or hyphens).',
    );
    expect(() => checkAutomationDisallowedTools(['ok', ''])).toThrow(/^automationDisallowedTools: "" cannot be a tool name/);
  });
});
