import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { maxHeaderLength, questionList } from './ask-user.js';

const option = () =>
  z.object({
    label: z.string().trim().min(1).max(80).describe('Option display text'),
    value: z.string().trim().min(1).max(1_000).describe('The value returned when this option is chosen'),
    description: z.string().trim().max(1_000).optional().describe('What this option means'),
  });

const question = () =>
  z
    .object({
      question: z.string().trim().min(2).max(1_000).describe('The question text'),
      header: z
        .string()
        .trim()
        .min(1)
        .max(maxHeaderLength)
        .optional()
        .describe(`Optional header shown above the question (max ${maxHeaderLength} characters)`),
      options: z
        .array(option())
        .min(2, 'a question needs at least 2 options')
        .max(4, 'a question has at most 4 options')
        .describe('2-4 options'),
      multiSelect: z.boolean().default(false).describe('Allow selecting multiple options'),
    })
    .superRefine((question, context) => {
      const labels = question.options.map((option) => option.label.toLowerCase());
      if (new Set(labels).size !== labels.length)
        context.addIssue({ code: 'custom', path: ['options'], message: 'option labels must be different from each other' });
      if (labels.includes('other'))
        context.addIssue({ code: 'custom', path: ['options'], message: '"Other" is always offered to the user; do not add it' });
    });
export type ClaurstQuestion = z.infer<ReturnType<typeof question>>;

export const askUserQuestion = defineTool({
  name: 'AskUserQuestion',
  waits: true,
  description:
    'Pause and ask the user 1-4 multiple-choice questions, then wait for the choice. Returns {questions, answers}: ' +
    "answers maps each question to the selected option value (a list when multiSelect), or to the user's own words.",
  input: () =>
    z.object({
      questions: questionList(question(), 4),
    }),
});
