import { ArborClientError } from '../client/errors.js';
import { UsageError } from './usage-error.js';

/** SDK field names as the flags a CLI user typed. */
const flagOfField: Record<string, string> = {
  max_tool_rounds: '--max-tool-rounds',
  title: '--title',
  model: '--model',
  owner: '--owner',
  tools: '--tools',
  approval: '--approval',
  work_mode: '--work-mode',
  instruction: 'the instruction',
  start_local: '--start',
  timezone: '--timezone',
  recurrence: '--recurrence',
  prompt: '--prompt',
};

/** An SDK error message in the words of the CLI: its fields named as the flags that set them. */
export function inFlagWords(message: string): string {
  return message
    .replace(/Invalid session options:/g, 'Invalid options:')
    .replace(/\b(max_tool_rounds|start_local)\b/g, (field) => flagOfField[field]!)
    .replace(/→ at (\w+)/g, (whole, field: string) => (flagOfField[field] ? `→ at ${flagOfField[field]}` : whole))
    .replace(/(?<!-)\brecurrence is one of\b/g, '--recurrence is one of');
}

/** Runs an SDK call; an ArborClientError it throws becomes a UsageError that names flags, not fields. */
export async function inFlagTerms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ArborClientError)) throw error;
    throw new UsageError(inFlagWords(error.message));
  }
}
