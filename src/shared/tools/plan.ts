import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const maxPlanLength = 50_000;

export const planWrite = defineTool({
  name: 'planWrite',
  description:
    'Store the plan: a Markdown document of up to 50,000 characters with an optional title, replacing the previous one. ' +
    'Keep the reasoning you do not want to rebuild later here. An empty string clears it.',
  input: () =>
    z.object({
      content: z.string().max(maxPlanLength, `The plan is at most ${maxPlanLength} characters`).describe('The whole plan, in Markdown'),
      title: z.string().trim().max(200).optional().describe('A short title'),
    }),
});

export const planGet = defineTool({
  name: 'planGet',
  description: 'Read the stored plan back, with its title, revision number and size.',
  input: () => z.object({}),
});
