import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli } from '../support/processes.js';
import { call } from '../support/scripted-model.js';

describe('Plan mode from the CLI (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-plan-mode');
  const { fake, model } = servers;
  const env = servers.cliEnv;

  it('starts a session in Plan mode with --work-mode plan, and execute-plan switches it to Execute mode and waits for the implementation', async () => {
    const instruction = `Plan the release ${randomUUID()}`;
    model.script(
      instruction,
      call('planWrite', { content: '# Release\n1. tag it', title: 'Release' }),
      { content: 'Plan ready.' },
      { content: 'Implemented the plan.' },
    );
    const started = await runCli(['start', instruction, '--work-mode', 'plan', '--profile', 'all', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const { session_id: id } = JSON.parse(started.stdout) as { session_id: string };
    expect((await servers.client.session(id).waitUntilIdle({ timeoutMs: 60_000 })).work_mode).toBe('plan');

    const executed = await runCli(['execute-plan', id.slice(0, 8), '--message', 'Tag it v2.', '--wait', '--json'], env);
    expect(executed.code, executed.stderr).toBe(0);
    const answer = JSON.parse(executed.stdout) as { answer: string; snapshot: { work_mode: string } };
    expect(answer.answer).toBe('Implemented the plan.');
    expect(answer.snapshot.work_mode).toBe('execute');
    expect(fake.requestsFor(instruction).at(-1)!.body.messages.at(-1)?.content).toMatch(
      /^\[Execute plan\][\s\S]*The user added: Tag it v2\.$/,
    );

    const again = await runCli(['execute-plan', id], env);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(`arbor: Session ${id} is in Execute mode already: its tools all run.`);
  });

  it('refuses a --work-mode that is not plan or execute before anything starts', async () => {
    const refused = await runCli(['start', 'Anything', '--work-mode', 'careful'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--work-mode "careful": the mode is one of plan, execute.');
  });
});
