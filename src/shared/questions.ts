import { z } from 'zod';
import { lazy } from './lazy.js';
import type { ResolvedAnswer } from './answers.js';
import type { QuestionSet } from './tools/ask-user.js';

export const answerRequestSchema = lazy(() =>
  z.object({
    question_set_id: z.string().min(1, 'question_set_id is missing'),
    answers: z.record(z.string(), z.unknown()),
  }),
);
export type AnswerRequest = z.infer<ReturnType<typeof answerRequestSchema>>;

export interface AnswerReceipt {
  question_set_id: string;
  session_id: string;
  answers: ResolvedAnswer[];
}

export type TreeQuestionsChange =
  { kind: 'asked'; question_set: QuestionSet; ancestor_session_ids: string[] } | { kind: 'settled'; question_set_id: string };
