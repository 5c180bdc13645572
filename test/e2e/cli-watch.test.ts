import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { runCli } from '../support/processes.js';
import { call } from '../support/scripted-model.js';
import { waitUntil } from '../support/wait.js';

describe('arbor watch', () => {
  const servers = devServerWorkers('sk-watch-e2e');

  it(
    'prints a stopped tree’s backlog in time order with times, distinct tags and tagged continuation lines, then exits',
    { timeout: 150_000 },
    async () => {
      const root = `root ${randomUUID()}`;
      const first = `first helper ${randomUUID()}`;
      const second = `second helper ${randomUUID()}`;
      servers.model.script(
        root,
        call('subAgent', { title: 'Helper', instruction: first, mode: 'sync' }),
        call('subAgent', { title: 'Helper', instruction: second, mode: 'sync' }),
        { content: 'Root done.\nRoot second line.' },
      );
      servers.model.script(first, { content: 'First helper done.' });
      servers.model.script(second, { content: 'Second helper, line one.\nSecond helper, line two.' });
      const session = await servers.client.startSession({ instruction: root, title: 'Root' });
      await waitUntil(async () => (await session.snapshot()).last_message?.content === 'Root done.\nRoot second line.', 90_000);
      await session.stop();

      const watched = await runCli(['watch', session.id], servers.cliEnv, 90_000);
      expect(watched.code, watched.stderr).toBe(0);
      expect(watched.stderr).toContain(`(every session of the tree of ${session.id} has ended)`);
      const lines = watched.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line).toMatch(/^\d\d:\d\d:\d\d +\d+ /);
      const at = (text: string) => {
        const index = lines.findIndex((line) => line.endsWith(text));
        expect(index, `no line ends with ${JSON.stringify(text)}:\n${watched.stdout}`).toBeGreaterThanOrEqual(0);
        return index;
      };
      const firstDone = at('[Helper] assistant: First helper done.');
      const secondStart = at('[Helper #2] user: ' + second);
      at('[Helper #2] assistant: Second helper, line one.');
      const continuation = at('[Helper #2]   Second helper, line two.');
      const rootDone = at(' assistant: Root done.');
      expect(lines[rootDone + 1]).toMatch(/^\d\d:\d\d:\d\d +\d+ {3}Root second line\.$/);
      // Time order across the tree: each helper's lines sit between the root's calls that started them.
      expect(firstDone).toBeLessThan(secondStart);
      expect(continuation).toBeLessThan(rootDone);
      const times = lines.map((line) => line.slice(0, 8));
      expect(times).toEqual([...times].sort());
    },
  );
});
