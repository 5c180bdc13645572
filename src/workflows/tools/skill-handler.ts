import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { skill } from '../../shared/tools/skill.js';
import type { ToolContext } from './tool-context.js';
import { replyText } from './reply.js';

const { readSkill } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});

/** Skill: the worker reads the skill's file (an activity), so the text the model follows is the one history keeps. */
export function runSkill(args: ToolArgs<typeof skill>, context: ToolContext): Promise<string> {
  const request = { owner: context.state.identity.owner, skill: args.skill, ...(args.args !== undefined ? { args: args.args } : {}) };
  return readSkill
    .executeWithOptions({ summary: args.skill === 'list' ? 'skills · list' : `skill ${args.skill}` }, [request])
    .then(replyText);
}
