import { describe, expect, it } from 'vitest';
import { devServerWorkers } from '../support/dev-server-workers.js';
import { startCli } from '../support/processes.js';
import { waitUntil } from '../support/wait.js';
import { startLiveText } from '../../src/cli/live-text.js';

describe('the CLI printing answers as they are written', () => {
  const servers = devServerWorkers('sk-cli-streaming-test');
  const { fake, cliEnv } = servers;
  const exitOf = (cli: ReturnType<typeof startCli>) =>
    new Promise<number | null>((resolve) =>
      cli.child.exitCode === null ? cli.child.once('exit', (code) => resolve(code)) : resolve(cli.child.exitCode),
    );

  it('arbor run shows the first words, and a sub-agent’s under its title, before the model writes the last', async () => {
    let releaseLast!: () => void;
    const lastChunk = new Promise<void>((resolve) => (releaseLast = resolve));
    const answer = ['The ', 'first ', 'words ', 'come ', 'early; ', 'the ', 'last ', 'word.'];
    fake.reply(
      {
        toolCalls: [{ name: 'subAgent', arguments: JSON.stringify({ title: 'Helper', instruction: 'Help out.', mode: 'sync' }) }],
      },
      { content: 'Helper notes\nsecond line', chunks: ['Helper ', 'notes\n', 'second line'], chunkDelayMs: 20 },
      { content: answer.join(''), chunks: answer, chunkDelayMs: 20, beforeLastChunk: lastChunk },
    );
    const cli = startCli(['run', 'Answer slowly.'], cliEnv);
    try {
      await waitUntil(() => cli.stdout().includes('The first words come early; the last '), 90_000);
      expect(cli.stdout()).not.toContain('word.');
      releaseLast();
      expect(await exitOf(cli), cli.stderr()).toBe(0);
    } finally {
      releaseLast();
      await cli.interrupt();
    }
    // Each session's text in its own lines, the sub-agent's under its title (read from the moment its parent's stream
    // announced it, and read to its end before the command exits); the answer is printed once, not again at the end.
    const lines = cli.stdout().split('\n');
    expect(lines.filter((line) => line.startsWith('[Helper] '))).toEqual(['[Helper] Helper notes', '[Helper] second line']);
    expect(lines.filter((line) => !line.startsWith('[Helper] ')).join(''), JSON.stringify(cli.stdout())).toBe(answer.join(''));
  });

  it('arbor run --no-stream prints the answer once, whole, at the end', async () => {
    fake.reply({ content: 'Whole answer.', chunks: ['Whole ', 'answer.'], chunkDelayMs: 20 });
    const cli = startCli(['run', 'Answer whole.', '--no-stream'], cliEnv);
    expect(await exitOf(cli), cli.stderr()).toBe(0);
    expect(cli.stdout()).toBe('Whole answer.\n');
  });

  it('arbor send --wait streams the answer of its own turn only', async () => {
    fake.reply({ content: 'First turn.', chunks: ['First ', 'turn.'] });
    const session = await servers.client.startSession({ instruction: 'Begin.' });
    await session.waitUntilIdle({ timeoutMs: 60_000 });
    fake.reply({ content: 'Second turn, streamed.', chunks: ['Second ', 'turn, ', 'streamed.'], chunkDelayMs: 20 });
    const cli = startCli(['send', session.id, 'Go on.', '--wait', ...(process.env.NOSTREAM ? ['--no-stream'] : [])], cliEnv);
    const timer = setTimeout(() => void cli.interrupt(), 40_000);
    const code = await exitOf(cli);
    clearTimeout(timer);
    expect(code, `${cli.stderr()}\n---\n${cli.stdout()}`).toBe(0);
    expect(cli.stdout()).toBe('Second turn, streamed.\n');
  });

  it('prints a round’s text only after the lines of the tool calls before it have been printed', async () => {
    const after = ['After ', 'the ', 'tool.'];
    fake.reply(
      // Streamed, as providers stream tool calls: the stream tells of the call as the model starts it.
      {
        toolCalls: [{ name: 'todoWrite', arguments: JSON.stringify({ todos: [{ content: 'Look', status: 'in_progress' }] }) }],
        chunks: [],
      },
      { content: after.join(''), chunks: after, chunkDelayMs: 10 },
    );
    const session = await servers.client.startSession({ instruction: 'Use a tool, then answer.' });
    let written = '';
    // Nothing prints the tool call's lines until the test does: the text waits for them (at most a minute here).
    const live = startLiveText(session, { afterTurn: 0, write: (text) => (written += text), toolLineWaitMs: 60_000 });
    try {
      await session.waitUntilIdle({ timeoutMs: 60_000 });
      const events = [];
      for await (const event of session.events({ follow: false })) events.push(event);
      const result = events.find((event) => event.type === 'tool_result');
      expect(result, JSON.stringify(events)).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(written).toBe('');
      live.eventShown(session.id, result!);
      await waitUntil(() => written === after.join(''), 10_000);
    } finally {
      await live.stop();
    }
    expect(live.lastRootText()).toBe(after.join(''));
  });
});
