import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionWorkflowType } from '../../src/shared/session.js';
import { resolveSessionId } from '../../src/client/session-id.js';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli } from '../support/processes.js';
import { call } from '../support/scripted-model.js';
import { Terminal } from '../support/terminal.js';
import { waitUntil } from '../support/wait.js';
import { regionQuestion as question } from '../support/questions.js';

describe('the arbor CLI: ids, versions, errors and answers', () => {
  const servers = devServerWorkers('sk-ids-e2e');
  let terminal: Terminal | undefined;

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  it('prints its version with --version', async () => {
    const result = await runCli(['--version'], servers.cliEnv);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
  });

  it('writes its own errors and those commander finds in one format', async () => {
    const unknown = await runCli(['frobnicate'], servers.cliEnv);
    expect(unknown.stderr).toMatch(/^arbor: unknown command 'frobnicate'/);
    const missing = await runCli(['send'], servers.cliEnv);
    expect(missing.stderr).toMatch(/^arbor: missing required argument 'session-id'/);
    const ours = await runCli(['show', randomUUID()], servers.cliEnv);
    expect(ours.stderr).toMatch(/^arbor: No session with id /);
    for (const result of [unknown, missing, ours]) expect(result.code).toBe(2);
  });

  it('takes a unique start of a session id, and refuses one several sessions share by naming them', { timeout: 120_000 }, async () => {
    const shared = `${randomUUID().slice(0, 8)}-feed`;
    const ids = [`${shared}-a001`, `${shared}-b002`];
    for (const workflowId of ids) {
      await servers.client.temporal.workflow.start(sessionWorkflowType, {
        workflowId,
        taskQueue: servers.settings.taskQueue,
        args: [{ instruction: `hello from ${workflowId}` }],
      });
    }
    // Visibility lists new workflows a moment after they start.
    await waitUntil(
      async () =>
        String(await resolveSessionId(servers.client.temporal, shared).catch((error: Error) => error.message)).includes('start of 2'),
      30_000,
    );

    const ambiguous = await runCli(['show', shared], servers.cliEnv);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`"${shared}" is the start of 2 session ids:`);
    for (const id of ids) expect(ambiguous.stderr).toContain(id);

    const unique = await runCli(['show', `${shared}-b`, '--json'], servers.cliEnv);
    expect(unique.code, unique.stderr).toBe(0);
    expect(JSON.parse(unique.stdout)).toMatchObject({ session_id: ids[1] });
  });

  it(
    'works with any workflow id whose workflow is an Arbor session, and says when a workflow is not one',
    { timeout: 120_000 },
    async () => {
      const orderId = `order-${randomUUID()}`;
      await servers.client.temporal.workflow.start(sessionWorkflowType, {
        workflowId: orderId,
        taskQueue: servers.settings.taskQueue,
        args: [{ instruction: 'Started by another client.', title: 'Order' }],
      });
      await waitUntil(async () => (await servers.client.session(orderId).snapshot()).status === 'idle', 60_000);
      const sent = await runCli(['send', orderId, 'And now?', '--wait', '--json'], servers.cliEnv);
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ session_id: orderId, status: 'idle' });
      const tree = await runCli(['tree', orderId], servers.cliEnv);
      expect(tree.stdout).toContain(`Order  [idle]  ${orderId}`);

      const otherId = `other-${randomUUID()}`;
      const other = await servers.client.temporal.workflow.start('notAnArborWorkflow', {
        workflowId: otherId,
        taskQueue: `nobody-${randomUUID()}`,
        args: [],
      });
      try {
        const shown = await runCli(['show', otherId], servers.cliEnv);
        expect(shown.code).toBe(2);
        expect(shown.stderr).toContain(`arbor: Workflow ${otherId} is not an Arbor session: its type is notAnArborWorkflow`);
      } finally {
        await other.terminate();
      }
    },
  );

  it(
    'answer without --answers opens the picker on a terminal, and off one names the flag and the command',
    { timeout: 150_000 },
    async () => {
      const instruction = `deploy ${randomUUID()}`;
      servers.model.script(instruction, call('askUser', { questions: [question] }), { content: 'Deployed.' });
      const session = await servers.client.startSession({ instruction, title: 'Deployer' });
      await waitUntil(async () => (await session.snapshot()).pending_questions.length === 1, 60_000);

      const piped = await runCli(['answer', session.id], servers.cliEnv);
      expect(piped.code).toBe(2);
      expect(piped.stderr).toContain('arbor: --answers is needed when not on a terminal.');
      expect(piped.stderr).toContain(`Answer with: arbor answer ${session.id} --set `);

      terminal = await Terminal.startCli(['answer', session.id.slice(0, 13)], servers.cliEnv as Record<string, string>);
      await terminal.waitFor(`[Region] ${question.question}`, 60_000);
      await terminal.press('Down', 'Enter');
      const exit = await terminal.waitForExit(30_000);
      expect(exit.code, exit.screen).toBe(0);
      expect(exit.screen).toContain(`"${question.question}"="United States"`);
      await waitUntil(async () => (await session.snapshot()).last_message?.content === 'Deployed.', 60_000);
    },
  );

  it('refuses a one-off automation that would start in the past, and names flags in what it refuses', async () => {
    const past = await runCli(
      ['automations', 'create', '--title', 'Late', '--prompt', 'Too late', '--start', '2020-01-01T10:00', '--timezone', 'Europe/Berlin'],
      servers.cliEnv,
    );
    expect(past.code).toBe(2);
    expect(past.stderr).toContain(
      'arbor: --start 2020-01-01T10:00 (Europe/Berlin) is in the past: a one-off automation (--recurrence none)',
    );

    const invalid = await runCli(
      ['automations', 'create', '--title', 'Bad', '--prompt', 'Bad', '--start', '2030-02-30T10:00', '--recurrence', 'daily'],
      servers.cliEnv,
    );
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('--start');
    expect(invalid.stderr).not.toContain('start_local');
  });

  it('names the flags and arguments of list, memory and chat, not the SDK fields they set, when the SDK refuses a value', async () => {
    const refused = async (args: string[], stdin?: string) => {
      const result = await runCli(args, servers.cliEnv, 60_000, stdin);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^arbor: /m);
      return result.stderr;
    };
    expect(await refused(['list', '--limit', '5000'])).toContain(
      'Invalid options: ✖ Too big: expected number to be <=1000\n  → at --limit',
    );
    const listed = await refused(['memory', 'list', '--tag', 'x'.repeat(60), '--limit', '500']);
    expect([listed.includes('→ at --tag'), listed.includes('→ at --limit'), /at (tag|limit)\b/.test(listed)]).toEqual([true, true, false]);
    const searched = await refused(['memory', 'search', 'x'.repeat(2_000), '--limit', '99']);
    expect([searched.includes('→ at the query'), searched.includes('→ at --limit'), /at (query|limit)\b/.test(searched)]).toEqual([
      true,
      true,
      false,
    ]);
    // A first chat message longer than a message may be (read from stdin: an argument that long is refused by the OS).
    const chat = await refused(['chat'], `${'x'.repeat(200_001)}\n`);
    expect(chat).toContain('→ at your first message');
    expect(chat).not.toContain('at instruction');
  });

  it('tells arbor answer to name the set with --set when several wait, not "its id"', { timeout: 90_000 }, async () => {
    const instruction = `two sets ${randomUUID()}`;
    servers.model.script(
      instruction,
      {
        toolCalls: [
          // The same question twice: an answer to it fits both sets, so the set must be named.
          { name: 'askUser', arguments: JSON.stringify({ questions: [question] }) },
          { name: 'askUser', arguments: JSON.stringify({ questions: [question] }) },
        ],
      },
      { content: 'Both answered.' },
    );
    const session = await servers.client.startSession({ instruction });
    await waitUntil(async () => (await session.pendingQuestions()).length === 2, 60_000);
    const result = await runCli(['answer', session.id, '--answers', JSON.stringify({ [question.question]: 'Europe' })], servers.cliEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Several question sets are waiting; name one with --set <question-set-id>. Waiting: ');
    await session.stop();
  });

  it('names the flag, not the SDK field, when a session option is out of range', async () => {
    const result = await runCli(['start', 'Work.', '--max-tool-rounds', '5000'], servers.cliEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('→ at --max-tool-rounds');
    expect(result.stderr).not.toContain('max_tool_rounds');
  });
});
