import { z } from 'zod';
import { memoryStoreInputSchema } from '../shared/memory-store-input.js';
import { answerRequestSchema } from '../shared/questions.js';
import { userMessageSchema } from '../shared/session.js';
import { sessionWorkflowInputSchema } from '../shared/session-input.js';
import { executePlanRequestSchema } from '../shared/work-modes.js';

/**
 * The JSON Schemas of what clients send to Arbor's workflows, generated from the zod schemas the workflow and the SDK
 * check with (`npm run schemas` writes them into `schemas/`; a test fails when the files differ from the code).
 */
const wireSchemas = {
  'session-input': {
    schema: sessionWorkflowInputSchema,
    title: 'Arbor session input',
    description:
      'The one argument of a session workflow (arborSessionV3, arborSessionV2, arborSession, sessionWorkflow). Anything else fails the workflow at once with an InvalidSessionInput failure.',
  },
  'user-message': {
    schema: userMessageSchema,
    title: 'Arbor user message',
    description: 'The argument of the sendMessage update and of the userMessage signal.',
  },
  'answer-request': {
    schema: answerRequestSchema,
    title: 'Arbor answers to a question set',
    description:
      'The argument of the answerQuestions update. Each key of answers is a question text; each value a label, a list of labels (multiSelect), or {"other": "<text>"}.',
  },
  'execute-plan-request': {
    schema: executePlanRequestSchema,
    title: 'Arbor execute-plan request',
    description: 'The argument of the executePlan update (it may be left out): switches a Plan-mode session to Execute mode.',
  },
  'memory-store-input': {
    schema: memoryStoreInputSchema,
    title: 'Arbor memory store input',
    description: 'The one argument of memoryStoreWorkflow (workflow id arbor-memory-<owner>).',
  },
} as const;

export type WireSchemaName = keyof typeof wireSchemas;

/** Each schema as a JSON Schema document (draft 2020-12), by file name without `.json`. */
export function wireJsonSchemas(): Record<WireSchemaName, object> {
  const documents = {} as Record<WireSchemaName, object>;
  for (const [name, { schema, title, description }] of Object.entries(wireSchemas) as [
    WireSchemaName,
    (typeof wireSchemas)[WireSchemaName],
  ][]) {
    const generated = z.toJSONSchema(schema(), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const { $schema, ...rest } = generated;
    documents[name] = { $schema, title, description, ...rest };
  }
  return documents;
}

/** The text of a schema file: two-space JSON and a final newline. */
export function wireSchemaText(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
