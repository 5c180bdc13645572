import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { ApprovalRequest } from '../approval-request.js';

export const maxHeaderLength = 12;

const wordCount = (text: string) => text.trim().split(/\s+/).filter(Boolean).length;

const questionOption = () =>
  z.object({
    label: z
      .string()
      .trim()
      .min(1, 'an option label must not be empty')
      .max(80)
      .refine((label) => wordCount(label) <= 5, 'an option label must be 1 to 5 words')
      .describe('Option display text (1-5 words)'),
    description: z
      .string()
      .trim()
      .min(1, 'every option needs a description')
      .max(1_000)
      .describe('What this option means or what happens if chosen'),
    preview: z
      .string()
      .max(10_000)
      .optional()
      .describe('Preview shown while this option is focused (multi-line allowed); single-select questions only'),
  });
export type QuestionOption = z.infer<ReturnType<typeof questionOption>>;

const question = () =>
  z
    .object({
      question: z
        .string()
        .trim()
        .min(2)
        .max(1_000)
        .refine((text) => text.endsWith('?'), 'a question must end with a question mark')
        .describe('The complete question text, ending with a question mark'),
      header: z
        .string()
        .trim()
        .min(1, 'a header must not be empty')
        .max(maxHeaderLength, `a header is at most ${maxHeaderLength} characters`)
        .describe(`Short label (max ${maxHeaderLength} characters) shown as a chip next to the question`),
      options: z
        .array(questionOption())
        .min(2, 'a question needs at least 2 options')
        .max(4, 'a question has at most 4 options')
        .describe('2-4 options'),
      multiSelect: z.boolean().default(false).describe('true to allow selecting several options'),
    })
    .superRefine((question, context) => {
      if (question.multiSelect && question.options.some((option) => option.preview !== undefined)) {
        context.addIssue({
          code: 'custom',
          path: ['options'],
          message: 'preview is only allowed on single-select questions (multiSelect false)',
        });
      }
      const labels = question.options.map((option) => option.label.toLowerCase());
      if (new Set(labels).size !== labels.length) {
        context.addIssue({ code: 'custom', path: ['options'], message: 'option labels must be different from each other' });
      }
      if (labels.includes('other')) {
        context.addIssue({
          code: 'custom',
          path: ['options'],
          message: '"Other" is always offered to the user; do not add it as an option',
        });
      }
    });
export type Question = z.infer<ReturnType<typeof question>>;

/** A tool's list of 1 to `max` questions, each asked once: the one rule askUser, AskUserQuestion and ask_user share. */
export function questionList<Item extends z.ZodType<{ question: string }>>(item: Item, max: number) {
  return z
    .array(item)
    .min(1, 'ask at least 1 question')
    .max(max, `ask at most ${max} questions at once`)
    .refine((questions) => new Set(questions.map((q) => q.question)).size === questions.length, 'each question must be asked only once')
    .describe(`1-${max} questions`);
}

export const askUser = defineTool({
  name: 'askUser',
  waits: true,
  description:
    'Ask the user 1-4 multiple-choice questions to gather preferences, clarify ambiguity or get a decision, and wait for the answers. ' +
    'The user can always pick "Other" and answer in their own words, so do not add an "Other" option.',
  input: () =>
    z.object({
      questions: questionList(question(), 4),
    }),
});

/** A set of questions one askUser call is waiting on. */
export interface QuestionSet {
  question_set_id: string;
  session_id: string;
  session_title: string;
  questions: Question[];
  asked_at: string;
  /** Set when the set asks for approval of a host tool's call (one question: Approve, Deny, or the user's own words). */
  approval?: ApprovalRequest;
  /**
   * The questions (their texts) whose answers are secret (soai ask_user): a client answers them sealed with the key it
   * shares with the workers (src/client/secret-seal.ts), and the session takes no answer to them in clear.
   */
  secret_questions?: string[];
}
