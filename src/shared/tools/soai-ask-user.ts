import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { maxHeaderLength, questionList } from './ask-user.js';

/** How long ask_user waits for the answers unless the worker sets a question timeout (TOOLS.MCP.ELICITATION.WAIT_TIMEOUT_MS). */
export const soaiAskUserTimeoutSeconds = 3_600;

const option = () =>
  z.object({
    label: z.string().trim().min(1).max(80).describe('Option text'),
    description: z.string().trim().max(1_000).optional().describe('What choosing it means'),
  });

const question = () =>
  z
    .object({
      question: z.string().trim().min(2).max(1_000).describe('The question'),
      header: z.string().trim().min(1).max(maxHeaderLength).optional().describe(`Short label (max ${maxHeaderLength} characters)`),
      options: z
        .array(option())
        .max(4, 'a question has at most 4 options')
        .default([])
        .describe('2-4 options advised; none (default) for a free-text answer'),
      multi_select: z.boolean().default(false).describe('Allow several options'),
      secret: z
        .boolean()
        .default(false)
        .describe('Confidential free text: never stored in clear, shown to you in this turn only (credentials belong in a vault)'),
    })
    .superRefine((question, context) => {
      if (question.options.length === 1)
        context.addIssue({ code: 'custom', path: ['options'], message: 'give 2-4 options, or none for free text' });
      if (question.secret && question.options.length > 0)
        context.addIssue({ code: 'custom', path: ['secret'], message: 'secret applies to free-text questions only (no options)' });
      const labels = question.options.map((option) => option.label.toLowerCase());
      if (new Set(labels).size !== labels.length)
        context.addIssue({ code: 'custom', path: ['options'], message: 'option labels must be different from each other' });
    });
export type SoaiQuestion = z.infer<ReturnType<typeof question>>;

export const soaiAskUser = defineTool({
  name: 'ask_user',
  waits: true,
  description:
    'Pause the turn, put 1-6 questions to the user (1-3 advised, with 2-4 options each, or none for free text) and ' +
    `wait for the answers, at most one hour by default. Use notify_user for news that needs no answer.`,
  input: () =>
    z.object({
      questions: questionList(question(), 6),
    }),
});
