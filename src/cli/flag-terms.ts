import { ArborClientError } from '../client/errors.js';
import { UsageError } from './usage-error.js';

/**
 * The words a command's errors use for the SDK fields its flags and arguments set: each field, as `→ at field` in a
 * check's report or (a name with an underscore) anywhere in a message, becomes the flag or argument that sets it; and
 * the SDK's phrases that only make sense in code become what to type.
 */
export interface FlagTerms {
  fields: Readonly<Record<string, string>>;
  phrases?: readonly (readonly [RegExp, string])[];
}

/** `run`, `start`: the session options. */
export const sessionTerms: FlagTerms = {
  fields: {
    max_tool_rounds: '--max-tool-rounds',
    max_tokens: '--max-tokens',
    max_cost_usd: '--max-cost-usd',
    title: '--title',
    model: '--model',
    owner: '--owner',
    tools: '--tools',
    approval: '--approval',
    work_mode: '--work-mode',
    profile: '--profile',
    instruction: 'the instruction',
  },
};

/** `chat`: the session options, its first message the instruction, and the messages after it. */
export const chatTerms: FlagTerms = {
  fields: { ...sessionTerms.fields, instruction: 'your first message', content: 'the message' },
};

/** `send`: the message argument. */
export const sendTerms: FlagTerms = { fields: { content: 'the message' } };

/** `execute-plan`: its message. */
export const executePlanTerms: FlagTerms = { fields: { message: '--message' } };

/** `list`. */
export const listTerms: FlagTerms = { fields: { status: '--status', owner: '--owner', title: '--title', limit: '--limit' } };

/** `memory list`, `memory search`, `memory delete`. */
export const memoryTerms: FlagTerms = {
  fields: { owner: '--owner', tag: '--tag', limit: '--limit', query: 'the query', memory_id: 'the memory id' },
};

/** `answer`: `--answers` and `--set`. */
export const answerTerms: FlagTerms = {
  fields: { answers: '--answers', question_set_id: '--set' },
  phrases: [[/\bname one with its id\b/g, 'name one with --set <question-set-id>']],
};

/** `automations` and its subcommands. */
export const automationTerms: FlagTerms = {
  fields: {
    owner: '--owner',
    title: '--title',
    prompt: '--prompt',
    start_local: '--start',
    timezone: '--timezone',
    recurrence: '--recurrence',
    tools: '--tools',
    approval: '--approval',
    profile: '--profile',
    automation_id: 'the automation id',
  },
  phrases: [[/(?<!-)\brecurrence is one of\b/g, '--recurrence is one of']],
};

/** An SDK error message in the words of the CLI: its fields named as the flags (or arguments) that set them. */
export function inFlagWords(message: string, terms: FlagTerms): string {
  const { fields, phrases = [] } = terms;
  let text = message
    .replace(/\bInvalid (?:session|list) options:/g, 'Invalid options:')
    .replace(/→ at (\w+)/g, (whole, field: string) => (fields[field] ? `→ at ${fields[field]}` : whole))
    .replace(/(?<![-\w])[a-z]+(?:_[a-z]+)+\b/g, (field) => fields[field] ?? field);
  for (const [pattern, words] of phrases) text = text.replace(pattern, words);
  return text;
}

/** Runs a command's SDK calls; an ArborClientError they throw becomes a UsageError that names flags, not fields. */
export async function inFlagTerms<T>(terms: FlagTerms, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ArborClientError)) throw error;
    throw new UsageError(inFlagWords(error.message, terms));
  }
}
