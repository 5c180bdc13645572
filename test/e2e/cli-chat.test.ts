import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { call } from '../support/scripted-model.js';
import { Terminal } from '../support/terminal.js';
import { waitUntil } from '../support/wait.js';
import { regionQuestion as question } from '../support/questions.js';

describe('arbor chat on a terminal, continuing a session', () => {
  const servers = devServerWorkers('sk-chat-e2e');
  const env = servers.cliEnv as Record<string, string>;
  let terminal: Terminal | undefined;

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  it(
    'asks the questions already waiting before the first prompt, and answers /help and unknown commands itself',
    { timeout: 150_000 },
    async () => {
      const instruction = `deploy ${randomUUID()}`;
      servers.model.script(instruction, call('askUser', { questions: [question] }), { content: 'Deployed to Frankfurt.' });
      const session = await servers.client.startSession({ instruction, title: 'Deployer' });
      await waitUntil(async () => (await session.snapshot()).pending_questions.length === 1, 60_000);

      terminal = await Terminal.startCli(['chat', session.id], env);
      const asked = await terminal.waitFor(`[Region] ${question.question}`, 60_000);
      expect(asked).toContain(`continuing session ${session.id} (Deployer), model fake-model, waiting_for_user.`);
      expect(asked).toContain('/exit or Ctrl-D leaves');
      expect(asked).not.toContain('you> ');
      await terminal.press('Enter');
      await terminal.waitFor('Deployed to Frankfurt.', 60_000);
      await terminal.waitFor('you> ', 30_000);

      const requests = servers.fake.requests.length;
      await terminal.type('/help');
      await terminal.press('Enter');
      await terminal.waitFor('/exit, /quit   leave', 10_000);
      await terminal.type('/deploy now');
      await terminal.press('Enter');
      await terminal.waitFor('Unknown command /deploy: /help lists the commands', 10_000);
      await terminal.type('/exit');
      await terminal.press('Enter');
      const exit = await terminal.waitForExit(30_000);
      expect(exit.code, exit.screen).toBe(0);
      expect(servers.fake.requests.length).toBe(requests);
      expect((await session.snapshot()).message_count).toBe(4);
    },
  );

  it('says a stopped session has ended before any prompt', { timeout: 90_000 }, async () => {
    const session = await servers.client.startSession({ instruction: `stop me ${randomUUID()}`, title: 'Stopped one' });
    await session.stop();

    terminal = await Terminal.startCli(['chat', session.id], env);
    const exit = await terminal.waitForExit(60_000);
    expect(exit.code, exit.screen).toBe(2);
    expect(exit.screen).toContain(`Session ${session.id} ("Stopped one") has ended (stopped) and takes no more messages`);
    expect(exit.screen).not.toContain('you> ');
  });

  it('offers the recent open sessions to resume when started without an id', { timeout: 120_000 }, async () => {
    const owner = `picker-${randomUUID().slice(0, 8)}`;
    const older = await servers.client.startSession({ instruction: `older ${randomUUID()}`, title: 'Older work', owner });
    const newer = await servers.client.startSession({ instruction: `newer ${randomUUID()}`, title: 'Newer work', owner });
    await waitUntil(async () => (await servers.client.listSessions({ owner })).length === 2, 30_000);
    await waitUntil(async () => (await newer.snapshot()).status === 'idle', 30_000);

    terminal = await Terminal.startCli(['chat', '--owner', owner], env);
    const offered = await terminal.waitFor('Resume a session, or start a new one?', 60_000);
    expect(offered).toContain('Start a new session');
    expect(offered.indexOf('Newer work')).toBeGreaterThan(0);
    expect(offered.indexOf('Older work')).toBeGreaterThan(offered.indexOf('Newer work'));
    await terminal.press('Down', 'Enter');
    await terminal.waitFor(`continuing session ${newer.id} (Newer work)`, 30_000);
    await terminal.waitFor('you> ', 30_000);
    await terminal.press('C-d');
    const exit = await terminal.waitForExit(30_000);
    expect(exit.code, exit.screen).toBe(0);
    expect(older.id).not.toBe(newer.id);
  });
});

describe('arbor chat on a terminal, starting a session', () => {
  let terminal: Terminal | undefined;
  const servers = devServerWorkers('sk-chat-new');

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  it('names the model and how to leave in a banner before the first prompt', { timeout: 90_000 }, async () => {
    terminal = await Terminal.startCli(
      ['chat', '--model', 'fake-large', '--owner', `nobody-${randomUUID().slice(0, 8)}`],
      servers.cliEnv as Record<string, string>,
    );
    const screen = await terminal.waitFor('you> ', 60_000);
    expect(screen).toContain(
      'arbor chat: a new session, model fake-large. /exit or Ctrl-D leaves (the session stays open), /help lists the commands.',
    );
    await terminal.press('C-d');
    expect((await terminal.waitForExit(30_000)).code).toBe(0);
  });
});
