import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli } from '../support/processes.js';
import { call } from '../support/scripted-model.js';

describe('tool profiles from the CLI and in automations (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-profiles');
  const { fake, model } = servers;
  const env = servers.cliEnv;

  it('starts a session with --profile claurst, whose model is shown the claurst tools, and arbor show names the profile', async () => {
    const instruction = `Plan the sprint ${randomUUID()}`;
    model.script(instruction, call('TaskCreate', { subject: 'Write the parser' }), { content: 'Board ready.' });
    const started = await runCli(['start', instruction, '--profile', 'claurst', '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const { session_id: id } = JSON.parse(started.stdout) as { session_id: string };
    await servers.client.session(id).waitUntilIdle({ timeoutMs: 60_000 });

    const [first, second] = fake.requestsFor(instruction);
    expect(first!.body.tools?.map((tool) => tool.function.name)).toEqual([
      'TaskCreate',
      'TaskGet',
      'TaskUpdate',
      'TaskList',
      'CronCreate',
      'CronList',
      'CronDelete',
      'Agent',
      'Task',
      'TaskOutput',
      'TaskStop',
      'KillShell',
      'SendMessage',
      'AskUserQuestion',
    ]);
    expect(second!.body.messages.at(-1)?.content).toBe('{"task":{"id":"1","subject":"Write the parser"}}');
    const shown = await runCli(['show', id], env);
    expect(shown.stdout).toMatch(/^profile {3}claurst$/m);
    expect(JSON.parse((await runCli(['show', id, '--json'], env)).stdout)).toMatchObject({ profile: 'claurst' });
  });

  it('refuses a --profile that is not one before anything starts', async () => {
    const refused = await runCli(['start', 'Anything', '--profile', 'everything'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--profile "everything": the profile is one of rtc, claurst, soai, all.');
  });

  it("gives an automation's runs the profile it was created with: rtc by default, or the one --profile names", async () => {
    const owner = `grace-${randomUUID().slice(0, 8)}`;
    const rtcPrompt = `Summarise the inbox ${randomUUID()}`;
    const soaiPrompt = `Tidy the plan ${randomUUID()}`;
    model.script(rtcPrompt, { content: 'Inbox summarised.' });
    model.script(soaiPrompt, { content: 'Plan tidied.' });
    const automations = servers.client.automations(owner);
    const fields = { title: 'Inbox', timezone: 'UTC', start_local: '2099-01-01T09:00', recurrence: 'daily' };
    const byDefault = await automations.create({ ...fields, prompt: rtcPrompt, tools: ['todoWrite'] });
    const created = await runCli(
      ['automations', 'create', '--owner', owner, '--title', 'Plan', '--prompt', soaiPrompt, '--start', '2099-01-01T09:00'].concat([
        '--profile',
        'soai',
        '--tools',
        'todo_write,plan_get',
        '--json',
      ]),
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const bySoai = JSON.parse(created.stdout) as { automation_id: string };

    for (const [automation, prompt, profile, tools] of [
      [byDefault, rtcPrompt, 'rtc', ['todoWrite']],
      [bySoai, soaiPrompt, 'soai', ['todo_write', 'plan_get']],
    ] as const) {
      const { run_id: runId } = await automations.run(automation.automation_id);
      expect(await automations.waitRun(runId, 60_000)).toMatchObject({ status: 'completed' });
      expect(await servers.client.session(runId).snapshot()).toMatchObject({ profile });
      expect(fake.requestsFor(prompt)[0]!.body.tools?.map((tool) => tool.function.name)).toEqual(tools);
      await automations.delete(automation.automation_id);
    }
  });
});
