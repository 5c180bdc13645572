import { z } from 'zod';
import { defineTool } from './define-tool.js';

/** A skill's name: a Markdown file's name without `.md`, no path. */
export const skillNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** Offered only when the worker has a skills folder (see README "Skills"). */
export const skill = defineTool({
  name: 'Skill',
  description:
    'Run a skill: a prompt the user keeps as a Markdown file. Give its name, or "list" to see the skills and what ' +
    'each is for. The skill text comes back as the result, with $ARGUMENTS replaced by `args`: follow it.',
  input: () =>
    z.object({
      skill: z.string().trim().min(1).max(100).describe('The skill name, or "list"'),
      args: z.string().max(10_000).optional().describe('Text substituted for $ARGUMENTS in the skill'),
    }),
});

/** What the `readSkill` activity is asked. */
export interface SkillRequest {
  owner: string;
  /** A skill name, or `list`. */
  skill: string;
  args?: string;
}
