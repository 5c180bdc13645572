import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ArborClientError, type SessionEvent } from '../../src/client.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call } from '../support/scripted-model.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { runCli, runScript } from '../support/processes.js';
import { readmeExample } from '../support/readme-example.js';
import { Terminal } from '../support/terminal.js';
import { waitUntil } from '../support/wait.js';

/** A promise the test settles when it chooses: holds a model call (or a sub-agent's) open until then. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const root = fileURLToPath(new URL('../../', import.meta.url));

const userTexts = (request: RecordedRequest) =>
  request.body.messages.filter((message) => message.role === 'user').map((message) => message.content ?? '');

describe('steering and interrupting a running turn', () => {
  const servers = devServerWorkers('sk-steer-test');
  const { fake, model } = servers;

  it('shows a steer message sent with arbor send --steer to the model within the turn, before its last round', async () => {
    const instruction = 'Tidy the todo list in three steps.';
    const firstCall = gate();
    model.script(
      instruction,
      { ...call('todoWrite', { todos: [{ content: 'step one', status: 'in_progress' }] }), after: firstCall.opened },
      call('todoWrite', { todos: [{ content: 'step two', status: 'in_progress' }] }),
      { content: 'Done, in Spanish as asked.' },
    );
    const session = await servers.client.startSession({ instruction });
    await waitUntil(() => fake.requestsFor(instruction).length === 1, 30_000);

    const sent = await runCli(['send', session.id, 'Answer in Spanish from now on.', '--steer', '--json'], servers.cliEnv);
    expect(sent.code, sent.stderr).toBe(0);
    firstCall.open();
    const snapshot = await session.waitUntilIdle({ messageId: JSON.parse(sent.stdout).message_id, timeoutMs: 60_000 });

    const requests = fake.requestsFor(instruction);
    expect(requests).toHaveLength(3);
    expect(userTexts(requests[0]!)).toEqual([instruction]);
    // The second call, not the third (the turn's last), already carries it, after the first round's tool result.
    expect(userTexts(requests[1]!)).toEqual([instruction, 'Answer in Spanish from now on.']);
    expect(requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Answer in Spanish from now on.' });
    expect(snapshot.turn).toBe(1);
    const transcript = await session.transcript();
    expect(transcript.map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'assistant']);
  });

  it('cancels the model call in flight on an interrupt (the provider sees the connection closed) and starts a new turn, the running sub-agent going on', async () => {
    const instruction = 'Research widgets with a helper, then write a long report.';
    const subInstruction = 'Count the widgets.';
    const subWork = gate();
    const never = gate();
    model
      .script(
        instruction,
        call('subAgent', { title: 'Widget counter', instruction: subInstruction, mode: 'async' }),
        { content: 'A report that never ends.', after: never.opened },
        { content: 'Stopped the report; here is the short version.' },
        { content: 'The helper counted 42 widgets.' },
      )
      .script(subInstruction, { content: '42 widgets.', after: subWork.opened });
    const session = await servers.client.startSession({ instruction });
    await waitUntil(() => fake.requestsFor(instruction).length === 2, 30_000);
    const hanging = fake.requestsFor(instruction)[1]!;

    const interruptedAt = Date.now();
    const messageId = await session.send('Stop writing; give me the short version.', { mode: 'interrupt' });

    await waitUntil(() => fake.requestsFor(instruction).length === 3, 30_000);
    const next = fake.requestsFor(instruction)[2]!;
    expect(userTexts(next).at(-1)).toBe('Stop writing; give me the short version.');
    await waitUntil(() => hanging.abortedAt !== undefined, 10_000);
    expect(hanging.abortedAt! - interruptedAt).toBeLessThan(10_000);
    const afterInterrupt = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(afterInterrupt.turn).toBe(2);
    expect(afterInterrupt.children).toEqual([expect.objectContaining({ title: 'Widget counter', status: 'running' })]);

    const events: SessionEvent[] = [];
    for await (const event of session.events({ follow: false })) events.push(event);
    const interrupted = events.find(
      (event): event is Extract<SessionEvent, { type: 'turn_interrupted' }> => event.type === 'turn_interrupted',
    );
    expect(interrupted).toMatchObject({ turn: 1, message_id: messageId, model_call_cancelled: true, sub_agents_stopped: 0 });
    const transcript = await session.transcript();
    expect(transcript.find((entry) => entry.role === 'notice')?.content).toBe(
      'Turn 1 was interrupted by a new message; cancelled the model call. Sub-agents keep running.',
    );

    // Not lost: the sub-agent finishes after the interrupt, and its report starts the session's next turn.
    subWork.open();
    await waitUntil(async () => (await session.snapshot()).turn === 3, 60_000);
    const done = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(done.children).toEqual([expect.objectContaining({ status: 'completed', final_message: '42 widgets.' })]);
    expect(done.last_message?.content).toBe('The helper counted 42 widgets.');
    never.open();
  });

  it("interrupts a sub-agent's own turn when the message is sent to the sub-agent, which then answers it and reports", async () => {
    const instruction = 'Delegate the meadow survey to a helper.';
    const subInstruction = 'Survey the meadow.';
    const never = gate();
    model
      .script(
        instruction,
        call('subAgent', { title: 'Meadow surveyor', instruction: subInstruction, mode: 'async' }),
        { content: 'Delegated.' },
        { content: 'The surveyor counted three hares.' },
      )
      .script(subInstruction, { content: 'A survey that never ends.', after: never.opened }, { content: 'Three hares.' });
    const session = await servers.client.startSession({ instruction });
    await waitUntil(() => fake.requestsFor(subInstruction).length === 1, 30_000);
    const hanging = fake.requestsFor(subInstruction)[0]!;
    const childId = (await session.snapshot()).children[0]!.sub_session_id;

    await servers.client.session(childId).send('Just count the hares.', { mode: 'interrupt' });
    await waitUntil(() => fake.requestsFor(subInstruction).length === 2, 30_000);
    expect(userTexts(fake.requestsFor(subInstruction)[1]!).at(-1)).toBe('Just count the hares.');
    await waitUntil(() => hanging.abortedAt !== undefined, 10_000);
    await waitUntil(async () => (await session.snapshot()).turn === 2, 60_000);
    const done = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(done.children).toEqual([expect.objectContaining({ status: 'completed', final_message: 'Three hares.' })]);
    expect(done.last_message?.content).toBe('The surveyor counted three hares.');
    never.open();
  });

  it('ends a turn waiting on a sync sub-agent at an interrupt, and stops the sub-agent when the message asks it to', async () => {
    const instruction = 'Delegate the count and wait for it.';
    const never = gate();
    model
      .script(instruction, call('subAgent', { title: 'Slow counter', instruction: 'Count slowly.', mode: 'sync' }), {
        content: 'Forgotten.',
      })
      .script('Count slowly.', { content: 'never', after: never.opened });
    const session = await servers.client.startSession({ instruction });
    await waitUntil(() => fake.requestsFor('Count slowly.').length === 1, 30_000);

    const messageId = await session.send('Forget the count.', { mode: 'interrupt', stopSubAgents: true });
    const snapshot = await session.waitUntilIdle({ messageId, timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Forgotten.');
    await waitUntil(async () => (await session.snapshot()).children[0]?.status === 'stopped', 30_000);
    await waitUntil(() => fake.requestsFor('Count slowly.')[0]!.abortedAt !== undefined, 10_000);

    const next = fake.requestsFor(instruction)[1]!;
    expect(next.body.messages.find((message) => message.role === 'tool')?.content).toMatch(/^Interrupted: /);
    expect(userTexts(next).at(-1)).toBe('Forget the count.');
    const events: SessionEvent[] = [];
    for await (const event of session.events({ follow: false })) events.push(event);
    expect(events.find((event) => event.type === 'turn_interrupted')).toMatchObject({
      model_call_cancelled: false,
      tool_calls_cancelled: ['subAgent'],
      sub_agents_stopped: 1,
    });
    never.open();
  });

  it('refuses an interrupt to a session running no turn, and an unknown mode, without failing a workflow task', async () => {
    const instruction = 'Say hello.';
    model.script(instruction, { content: 'Hello.' }, { content: 'Still here.' });
    const session = await servers.client.startSession({ instruction });
    await session.waitUntilIdle({ timeoutMs: 60_000 });

    await expect(session.send('Stop!', { mode: 'interrupt' })).rejects.toThrow(
      new ArborClientError(
        `Session ${session.id} is not running a turn, so there is nothing to interrupt; send the message without mode interrupt.`,
      ),
    );
    const raw = servers.client.temporal.workflow.getHandle(session.id);
    const refused = await raw.executeUpdate('sendMessage', { args: [{ content: 'Hi', mode: 'loudly' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/Invalid message: .*mode.*queue.*steer.*interrupt/);

    // The session goes on as before: a plain message is a turn.
    const id = await session.send('Are you there?');
    const snapshot = await session.waitUntilIdle({ messageId: id, timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Still here.');
    expect(snapshot.turn).toBe(2);
  });

  it('interrupts the running turn from arbor chat with Esc and the message typed after it', { timeout: 150_000 }, async () => {
    const instruction = 'Be ready for a report.';
    const never = gate();
    model.script(
      instruction,
      { content: 'Ready.' },
      { content: 'An endless report.', after: never.opened },
      // Slow enough for chat to follow the turn's events, the interruption among them.
      { content: 'Summary only, as asked.', delayMs: 3_000 },
    );
    const session = await servers.client.startSession({ instruction });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    const terminal = await Terminal.startCli(['chat', session.id], servers.cliEnv as Record<string, string>);
    try {
      await terminal.waitFor('you> ', 60_000);
      await terminal.type('Write the full report.');
      await terminal.press('Enter');
      await waitUntil(() => fake.requestsFor(instruction).length === 2, 30_000);

      await terminal.press('Escape');
      await terminal.waitFor('interrupt> ', 30_000);
      await terminal.type('Just the summary.');
      await terminal.press('Enter');

      const screen = await terminal.waitFor('Summary only, as asked.', 60_000);
      expect(screen).toContain('turn 2 interrupted: cancelled the model call');
      expect(userTexts(fake.requestsFor(instruction)[2]!).at(-1)).toBe('Just the summary.');
      await terminal.waitFor('you> ', 30_000);
      await terminal.type('/exit');
      await terminal.press('Enter');
      expect((await terminal.waitForExit(30_000)).code).toBe(0);
    } finally {
      never.open();
      await terminal.kill();
    }
  });

  it('runs the README example: a steer and an interrupt while the model is writing', async () => {
    const never = gate();
    model.script(
      'Write a long report on widgets',
      { content: 'Widgets are many and varied.', chunks: ['Widgets ', 'are ', 'many ', 'and varied.'], beforeLastChunk: never.opened },
      { content: 'Summary: widgets abound.' },
    );
    // In the repository, so that the script is an ES module of the package, as a user's would be.
    await mkdir(join(root, '.arbor'), { recursive: true });
    const scratch = await mkdtemp(join(root, '.arbor', 'steer-readme-'));
    try {
      const script = join(scratch, 'steer-interrupt.ts');
      await writeFile(script, await readmeExample('### Steer and interrupt a running turn'));
      const result = await runScript(script, servers.cliEnv, 120_000);
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe('Summary: widgets abound.\n');
      const requests = fake.requestsFor('Write a long report on widgets');
      await waitUntil(() => requests[0]!.abortedAt !== undefined, 10_000);
      expect(userTexts(requests[1]!).slice(-2)).toEqual(['Keep it under a page.', 'Stop: just the summary, please.']);
    } finally {
      never.open();
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
