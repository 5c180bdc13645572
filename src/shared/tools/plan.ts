import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const maxPlanLength = 50_000;

const planInput = () =>
  z.object({
    content: z.string().max(maxPlanLength, `The plan is at most ${maxPlanLength} characters`).describe('The whole plan, in Markdown'),
    title: z.string().trim().max(200).optional().describe('A short title'),
  });

export const planWrite = defineTool({
  name: 'planWrite',
  description:
    'Store the plan: a Markdown document of up to 50,000 characters with an optional title, replacing the previous one. ' +
    'Keep the reasoning you do not want to rebuild later here. An empty string clears it.',
  input: planInput,
});

export const planGet = defineTool({
  name: 'planGet',
  description: 'Read the stored plan back, with its title, revision number and size.',
  input: () => z.object({}),
});

/** The soai profile's plan document: the same plan as planWrite and planGet, under soai's names. */
export const planWriteSoai = defineTool({
  name: 'plan_write',
  description:
    'Store the plan document: Markdown of up to 50,000 characters with an optional title, replacing the previous one ' +
    '(an empty string clears it). It holds the reasoning you do not want to rebuild after compaction; the todo list ' +
    '(todo_write) holds the steps in front of you now.',
  input: planInput,
});

export const planGetSoai = defineTool({
  name: 'plan_get',
  description: 'Read the plan document back, with its title, revision number and size.',
  input: () => z.object({}),
});
