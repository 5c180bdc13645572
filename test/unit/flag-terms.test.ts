import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { ArborClient } from '../../src/client/arbor-client.js';
import { MemoryHandle } from '../../src/client/memory-handle.js';
import { SessionHandle } from '../../src/client/session-handle.js';
import { listSessions } from '../../src/client/session-list.js';
import { maxMessageLength } from '../../src/shared/session.js';
import {
  answerTerms,
  automationTerms,
  chatTerms,
  inFlagTerms,
  inFlagWords,
  listTerms,
  memoryTerms,
  sendTerms,
  sessionTerms,
} from '../../src/cli/flag-terms.js';
import { UsageError } from '../../src/cli/usage-error.js';

/** A client the SDK never reaches: each call below is refused by the SDK's own checks before anything is sent. */
const unreachable = { workflow: { getHandle: () => ({}) } } as unknown as Client;

/** The message of the error a refused SDK call throws, in the words of the CLI command given. */
async function refusal(terms: Parameters<typeof inFlagTerms>[0], call: () => Promise<unknown>): Promise<string> {
  const error = await inFlagTerms(terms, call).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UsageError);
  return (error as Error).message;
}

describe('CLI errors in flag words', () => {
  it('names the flags of start and run for the session options the SDK refuses', async () => {
    const message = await refusal(sessionTerms, () =>
      new ArborClient(unreachable, 'q').startSession({ instruction: 'Work.', max_tool_rounds: 5000, model: '' }),
    );
    expect(message).toMatch(/^Invalid options:/);
    expect(message).toContain('→ at --max-tool-rounds');
    expect(message).toContain('→ at --model');
    expect(message).not.toMatch(/max_tool_rounds|at model/);
  });

  it("names chat's messages as the messages, its first one too", async () => {
    const tooLong = 'x'.repeat(maxMessageLength + 1);
    expect(await refusal(chatTerms, () => new SessionHandle('s', unreachable).send(tooLong))).toContain('→ at the message');
    expect(await refusal(sendTerms, () => new SessionHandle('s', unreachable).send(tooLong))).toContain('→ at the message');
    expect(inFlagWords('Invalid session options: ✖ Too small\n  → at instruction', chatTerms)).toBe(
      'Invalid options: ✖ Too small\n  → at your first message',
    );
  });

  it('names the flags of list', async () => {
    const message = await refusal(listTerms, () => listSessions(unreachable, { limit: 5000, title: 'x' }));
    expect(message).toBe('Invalid options: ✖ Too big: expected number to be <=1000\n  → at --limit');
  });

  it('names the flags and arguments of memory list and search', async () => {
    const memories = new MemoryHandle('alice', unreachable, 'q');
    const listed = await refusal(memoryTerms, () => memories.list({ tag: 'x'.repeat(60), limit: 500 }));
    expect(listed).toContain('→ at --tag');
    expect(listed).toContain('→ at --limit');
    const searched = await refusal(memoryTerms, () => memories.search('x'.repeat(2_000), { limit: 99 }));
    expect(searched).toContain('→ at the query');
    expect(searched).toContain('→ at --limit');
    expect(searched).not.toMatch(/at (query|limit)\b/);
  });

  it('names --set and --answers in the answers an answer is refused with', () => {
    expect(inFlagWords('Several question sets are waiting; name one with its id. Waiting: q-1, q-2.', answerTerms)).toBe(
      'Several question sets are waiting; name one with --set <question-set-id>. Waiting: q-1, q-2.',
    );
    expect(inFlagWords('An answer needs a question_set_id and an answers object.', answerTerms)).toBe(
      'An answer needs a --set and an answers object.',
    );
  });

  it('names the flags of automations create for the schedule fields', () => {
    expect(inFlagWords('start_local "2030-02-30T10:00" is not a valid date and time', automationTerms)).toBe(
      '--start "2030-02-30T10:00" is not a valid date and time',
    );
    expect(inFlagWords('recurrence is one of none, hourly', automationTerms)).toBe('--recurrence is one of none, hourly');
  });

  it('leaves words that are no field of the command alone, and passes on errors that are not the SDK refusing', async () => {
    expect(inFlagWords('No session with id x.', sendTerms)).toBe('No session with id x.');
    expect(inFlagWords('✖ Too big\n  → at limit', sendTerms)).toBe('✖ Too big\n  → at limit');
    const other = new Error('connection refused');
    await expect(inFlagTerms(listTerms, () => Promise.reject(other))).rejects.toBe(other);
  });
});
