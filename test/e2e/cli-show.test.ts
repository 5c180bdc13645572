import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli } from '../support/processes.js';
import { call } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';
import { regionQuestion as question } from '../support/questions.js';

describe('arbor show, tree and loops on a tree whose members wait', () => {
  const servers = devServerWorkers('sk-show-e2e');

  it(
    'tell each member’s own state, agree with each other, print the answer command and a Web UI link, and list the loops of the whole tree',
    { timeout: 150_000 },
    async () => {
      const root = `root ${randomUUID()}`;
      const asker = `asker ${randomUUID()}`;
      const sleeper = `sleeper ${randomUUID()}`;
      servers.model.script(
        root,
        call('subAgent', { title: 'Asker', instruction: asker, mode: 'async' }),
        call('subAgent', { title: 'Sleeper', instruction: sleeper, mode: 'async' }),
        { content: 'Both started.' },
      );
      servers.model.script(asker, call('askUser', { questions: [question] }), { content: 'Asked.' });
      servers.model.script(
        sleeper,
        call('createLoop', { prompt: 'Check the queue', interval_seconds: 3600, max_turns: 5 }),
        call('wait', { seconds: 3600, reason: 'the queue fills slowly' }),
        { content: 'Slept.' },
      );
      const session = await servers.client.startSession({ profile: 'all', instruction: root, title: 'Root' });
      const env = servers.cliEnv;
      let tree: { children: { title: string; session_id: string; status: string; state: string }[] } = { children: [] };
      await waitUntil(async () => {
        const listed = await runCli(['tree', session.id, '--json'], env);
        tree = JSON.parse(listed.stdout);
        return (
          tree.children.length === 2 &&
          tree.children.some((child) => child.state.startsWith('waiting_for_user')) &&
          tree.children.some((child) => child.state.startsWith('waiting until'))
        );
      }, 90_000);
      const asking = tree.children.find((child) => child.title === 'Asker')!;
      const sleeping = tree.children.find((child) => child.title === 'Sleeper')!;
      expect(asking.state).toBe(`waiting_for_user: ${question.question}`);
      expect(sleeping.state).toMatch(/^waiting until \d{4}-\d\d-\d\dT\S+ \(the queue fills slowly\)$/);
      for (const child of tree.children) expect(child.status).toBe((await servers.client.session(child.session_id).snapshot()).status);

      const text = await runCli(['tree', session.id], env);
      expect(text.stdout).toContain(`Asker  [waiting_for_user: ${question.question}, async]  ${asking.session_id}`);
      expect(text.stdout).toContain(`Sleeper  [${sleeping.state}, async]  ${sleeping.session_id}`);

      const shownJson = JSON.parse((await runCli(['show', session.id, '--json'], env)).stdout);
      expect(shownJson.sub_agents.map((child: { session_id: string; state: string }) => [child.session_id, child.state]).sort()).toEqual(
        tree.children.map((child) => [child.session_id, child.state]).sort(),
      );
      const [port] = /:(\d+)$/.exec(servers.settings.address)!.slice(1);
      const link = `http://127.0.0.1:${Number(port) + 1000}/namespaces/default/workflows?query=${encodeURIComponent(`ArborRootSessionId="${session.id}"`)}`;
      expect(shownJson.web_ui).toBe(link);

      const shown = await runCli(['show', session.id], env);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`Asker  [waiting_for_user: ${question.question}, async]  ${asking.session_id}`);
      const [set] = shownJson.pending_questions;
      expect(shown.stdout).toContain(
        `  answer with: arbor answer ${session.id} --set ${set.question_set_id} --answers '{"${question.question}":"Europe"}'`,
      );
      expect(shown.stdout).toContain(`web ui    ${link}`);

      const loops = await runCli(['loops', session.id, '--json'], env);
      expect(loops.code, loops.stderr).toBe(0);
      expect(JSON.parse(loops.stdout).loops).toEqual([
        expect.objectContaining({ prompt: 'Check the queue', session_id: sleeping.session_id, session_title: 'Sleeper' }),
      ]);
    },
  );

  it(
    'say how a session closed by someone else ended, terminated, in list, show and tree alike, and print no question to answer',
    { timeout: 120_000 },
    async () => {
      const root = `terminated root ${randomUUID()}`;
      const sleeper = `terminated sleeper ${randomUUID()}`;
      servers.model.script(
        root,
        call('subAgent', { title: 'Sleeper', instruction: sleeper, mode: 'async' }),
        call('askUser', { questions: [question] }),
      );
      servers.model.script(sleeper, call('wait', { seconds: 3600, reason: 'nothing to do' }), { content: 'Slept.' });
      const title = `Terminated ${randomUUID()}`;
      const session = await servers.client.startSession({ profile: 'all', instruction: root, title });
      const env = servers.cliEnv;
      let childId = '';
      await waitUntil(async () => {
        const snapshot = await session.snapshot();
        childId = snapshot.children[0]?.sub_session_id ?? '';
        return (
          snapshot.pending_questions.length === 1 && childId !== '' && (await servers.client.session(childId).snapshot()).waiting !== null
        );
      }, 60_000);

      // Someone closes the sub-agent with Temporal's own tools: its snapshot still reads `waiting until …`.
      await servers.client.temporal.workflow.getHandle(childId).terminate('closed from outside');
      const tree = JSON.parse((await runCli(['tree', session.id, '--json'], env)).stdout);
      expect(tree.children.map((child: { status: string; state: string }) => [child.status, child.state])).toEqual([
        ['terminated', 'terminated'],
      ]);
      expect((await runCli(['tree', session.id], env)).stdout).toContain(`Sleeper  [terminated, async]  ${childId}`);
      const child = await runCli(['show', childId], env);
      expect(child.stdout).toMatch(/^status {4}terminated$/m);
      expect(child.stdout).not.toContain('waiting   until');

      // And the root, while its question waits: list, show and its JSON say terminated, with no answer command.
      await servers.client.temporal.workflow.getHandle(session.id).terminate('closed from outside');
      const listed = JSON.parse((await runCli(['list', '--title', title, '--json'], env)).stdout);
      expect(listed.sessions.map((entry: { status: string }) => entry.status)).toEqual(['terminated']);
      const shown = await runCli(['show', session.id], env);
      expect(shown.stdout).toMatch(/^status {4}terminated$/m);
      expect(shown.stdout).not.toContain('answer with');
      const shownJson = JSON.parse((await runCli(['show', session.id, '--json'], env)).stdout);
      expect([shownJson.status, shownJson.pending_questions, shownJson.sub_agents[0].status]).toEqual(['terminated', [], 'terminated']);
    },
  );
});
