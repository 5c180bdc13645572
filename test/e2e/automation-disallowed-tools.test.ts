import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';

describe('ARBOR_AUTOMATION_DISALLOWED_TOOLS on a worker process (dev server, Temporal Schedules, fake model)', () => {
  const servers = devServerWorkers('sk-admin-list', { workerEnv: { ARBOR_AUTOMATION_DISALLOWED_TOOLS: 'planWrite, automation_create' } });
  const { fake, model } = servers;

  it('gives a run of an automation only the tools it names that the administrator list allows', async () => {
    const owner = `frank-${randomUUID().slice(0, 8)}`;
    const prompt = `Tidy the backlog ${randomUUID()}`;
    model.script(prompt, { content: 'Backlog tidied.' });
    const automations = servers.client.automations(owner);
    const created = await automations.create({
      title: 'Backlog',
      prompt,
      timezone: 'UTC',
      start_local: '2099-01-01T09:00',
      recurrence: 'daily',
      profile: 'all',
      tools: ['todoWrite', 'planWrite', 'automation_create'],
    });
    expect(created.tools).toEqual(['todoWrite', 'planWrite', 'automation_create']);
    const { run_id: runId } = await automations.run(created.automation_id);
    expect(await automations.waitRun(runId, 60_000)).toMatchObject({ status: 'completed', final_message: 'Backlog tidied.' });
    expect(fake.requestsFor(prompt)[0]!.body.tools?.map((tool) => tool.function.name)).toEqual(['todoWrite']);
    await automations.delete(created.automation_id);
  });
});
