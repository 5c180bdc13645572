import { describe, expect, it } from 'vitest';
import { profileNames, toolProfiles } from '../../src/shared/tools/profiles/index.js';
import { renameResultKeys } from '../../src/shared/tools/profiles/profile.js';
import { findTool, toolNames } from '../../src/shared/tools/registry.js';
import { sessionProfile } from '../../src/workflows/session-profile.js';

describe('tool profiles as data', () => {
  it('lists only built-in tools, each once, in every profile', () => {
    for (const profile of profileNames) {
      const { tools } = toolProfiles[profile];
      expect(
        tools.every((name) => findTool(name) !== undefined),
        profile,
      ).toBe(true);
      expect(new Set(tools).size, profile).toBe(tools.length);
    }
  });

  it('keeps in all the 40 tools of before profiles and the seed agent tools, and gives no two profiles but all a tool in common', () => {
    expect(toolProfiles.all.tools.slice(0, 40)).toEqual(toolNames.slice(0, 40));
    expect(toolProfiles.all.tools).toEqual(expect.arrayContaining([...toolProfiles.claurst.tools, 'subagent_observe', 'ask_user']));
    // Skill and ToolSearch are in every profile, offered where the worker has skills and a session's host tools are deferred.
    const everywhere = ['Skill', 'ToolSearch'];
    for (const profile of profileNames) expect(toolProfiles[profile].tools, profile).toEqual(expect.arrayContaining(everywhere));
    const seeds = [toolProfiles.rtc.tools, toolProfiles.claurst.tools, toolProfiles.soai.tools];
    const counted = seeds.flat().filter((name) => !everywhere.includes(name));
    expect(new Set(counted).size).toBe(counted.length);
  });

  it("gives the rtc profile the rtc seed's 18 tools and the five memory tools", () => {
    expect(toolProfiles.rtc.tools.filter((name) => name !== 'Skill' && name !== 'ToolSearch')).toHaveLength(23);
    expect(toolProfiles.rtc.tools).toEqual(
      expect.arrayContaining(['subAgent', 'askUser', 'todoWrite', 'createLoop', 'webFetch', 'searchMemory']),
    );
  });

  it("removes soai's fixed set from every soai subagent, whatever its parent names", () => {
    expect(toolProfiles.soai.subAgentRemovals).toEqual({
      names: expect.arrayContaining([
        'subagent_spawn',
        'subagent_observe',
        'subagent_cancel',
        'ask_user',
        'notify_user',
        'todo_write',
        'plan_write',
        'plan_get',
        'automation_create',
        'automation_run_wait',
      ]),
      fixed: true,
    });
  });

  it('renames the result fields claurst spells in camelCase at any depth, and leaves text alone', () => {
    const adapt = toolProfiles.claurst.adaptResult!;
    expect(
      JSON.parse(
        adapt(
          'TaskUpdate',
          '{"success":true,"task_id":"2","updated_fields":["status"],"status_change":{"from":"pending","to":"completed"}}',
        ),
      ),
    ).toEqual({
      success: true,
      taskId: '2',
      updatedFields: ['status'],
      statusChange: { from: 'pending', to: 'completed' },
    });
    expect(JSON.parse(adapt('CronList', '{"jobs":[{"id":"c1","human_schedule":"every day at 09:00"}]}'))).toEqual({
      jobs: [{ id: 'c1', humanSchedule: 'every day at 09:00' }],
    });
    expect(renameResultKeys('Plan saved.', { a: 'b' })).toBe('Plan saved.');
  });

  it('reads a session input that names no profile as all, the tool set of sessions from before profiles', () => {
    expect(sessionProfile({ instruction: 'x' })).toBe('all');
    expect(sessionProfile({ instruction: 'x', profile: 'soai' })).toBe('soai');
  });
});
