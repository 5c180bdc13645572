import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli, startCli } from '../support/processes.js';
import { call, toolResults } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';
import { regionQuestion as question } from '../support/questions.js';

const seedText = (answer: string) =>
  `User has answered your questions: "Which region should we deploy to?"="${answer}". You can now continue with the user's answers in mind.`;

describe('askUser through the CLI and across a worker restart (dev server, worker process, fake model)', () => {
  const servers = devServerWorkers('sk-ask-e2e');
  const { fake, model } = servers;
  const env = servers.cliEnv;

  it('answers a question from two levels down with arbor answer on the root, and arbor watch shows it', async () => {
    const root = `root ${randomUUID()}`;
    const middle = `middle ${randomUUID()}`;
    const leaf = `leaf ${randomUUID()}`;
    model.script(root, call('subAgent', { title: 'Middle', instruction: middle, mode: 'sync' }), { content: 'Root done.' });
    model.script(middle, call('subAgent', { title: 'Deployer', instruction: leaf, mode: 'sync' }), { content: 'Middle done.' });
    model.script(leaf, call('askUser', { questions: [question] }), { content: 'Deployed.' });

    const started = await runCli(['start', root, '--json'], env);
    expect(started.code, started.stderr).toBe(0);
    const rootId = JSON.parse(started.stdout).session_id as string;
    const watch = startCli(['watch', rootId, '--json'], env);
    try {
      await waitUntil(async () => (await servers.client.session(rootId).snapshot()).pending_questions.length === 1, 60_000);
      const shown = JSON.parse((await runCli(['show', rootId, '--json'], env)).stdout);
      const [set] = shown.pending_questions;
      expect(set).toMatchObject({ session_title: 'Deployer', questions: [expect.objectContaining({ question: question.question })] });

      const wrong = await runCli(['answer', rootId, '--answers', JSON.stringify({ [question.question]: 'Mars' })], env);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('"Mars" is not an option of "Which region should we deploy to?"');
      const notJson = await runCli(['answer', rootId, '--answers', '{region'], env);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain('--answers is not valid JSON');

      const answered = await runCli(['answer', rootId, '--answers', JSON.stringify({ [question.question]: 'Europe' })], env);
      expect(answered.code, answered.stderr).toBe(0);
      expect(answered.stdout).toContain(`of session ${set.session_id}: "Which region should we deploy to?"="Europe"`);

      await waitUntil(async () => (await servers.client.session(rootId).snapshot()).status === 'idle', 60_000);
      expect(toolResults(fake.requestsFor(leaf)[1]!)).toEqual([seedText('Europe')]);

      const again = await runCli(
        ['answer', rootId, '--set', set.question_set_id, '--answers', JSON.stringify({ [question.question]: 'Europe' })],
        env,
      );
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('No questions are waiting');

      await waitUntil(() => watch.stdout().includes('"Root done."'), 30_000);
    } finally {
      expect(await watch.interrupt()).toBe(0);
    }
    const lines = watch
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { depth: number; session_title: string; event: { type: string; seq: number } });
    const asked = lines.find((line) => line.event.type === 'questions_asked');
    expect(asked).toMatchObject({ depth: 2, session_title: 'Deployer' });
    expect(lines.findIndex((line) => line.event.type === 'questions_answered')).toBeGreaterThan(lines.indexOf(asked!));
    for (const depth of [0, 1, 2]) {
      const seqs = lines.filter((line) => line.depth === depth).map((line) => line.event.seq);
      expect(seqs.length).toBeGreaterThan(0);
      expect(seqs).toEqual(seqs.map((_, index) => seqs[0]! + index));
    }
  });

  it('keeps a question waiting across a worker restart, then delivers the answer', async () => {
    const instruction = `restart ${randomUUID()}`;
    model.script(instruction, call('askUser', { questions: [question] }), { content: 'Deployed after the restart.' });
    const session = await servers.client.startSession({ instruction });
    await waitUntil(async () => (await session.snapshot()).status === 'waiting_for_user', 60_000);

    await servers.restartWorker();
    expect((await session.pendingQuestions()).map((set) => set.session_id)).toEqual([session.id]);

    await session.answer({ [question.question]: { other: 'Asia, Tokyo' } });
    const snapshot = await session.waitUntilIdle({ timeoutMs: 60_000 });
    expect(snapshot.last_message?.content).toBe('Deployed after the restart.');
    expect(toolResults(fake.requestsFor(instruction)[1]!)).toEqual([seedText('Asia, Tokyo')]);
  });
});
