import { afterEach, describe, expect, it } from 'vitest';
import { devServerSettings } from '../support/connection.js';
import { Terminal } from '../support/terminal.js';

const question = 'How detailed should my answer be?';

describe('arbor run on a terminal, when the demo model asks a question', () => {
  let terminal: Terminal | undefined;

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  async function runAsking(): Promise<Terminal> {
    const settings = devServerSettings();
    terminal = await Terminal.startCli(['run', 'Plan a picnic, but ask me first.'], {
      TEMPORAL_ADDRESS: settings.address,
      ARBOR_TASK_QUEUE: settings.taskQueue,
    });
    await terminal.waitFor(question, 60_000);
    return terminal;
  }

  it('sends the option picked with the arrow keys and prints the answer that echoes it', { timeout: 90_000 }, async () => {
    const terminal = await runAsking();
    await terminal.press('Down', 'Enter');

    const { code, screen } = await terminal.waitForExit(60_000);
    expect(code, screen).toBe(0);
    expect(screen).toContain(`askUser answered: User has answered your questions: "${question}"="Step by step"`);
  });

  it('asks for free text after "Other" and sends what was typed', { timeout: 90_000 }, async () => {
    const terminal = await runAsking();
    await terminal.press('Down', 'Down', 'Enter');
    await terminal.waitFor('Detail: your answer', 10_000);
    await terminal.type('Only the shopping list');
    await terminal.press('Enter');

    const { code, screen } = await terminal.waitForExit(60_000);
    expect(code, screen).toBe(0);
    expect(screen).toContain(`askUser answered: User has answered your questions: "${question}"="Only the shopping list"`);
  });
});

describe('arbor chat on a terminal', () => {
  let terminal: Terminal | undefined;

  afterEach(async () => {
    await terminal?.kill();
    terminal = undefined;
  });

  /** Polls the screen until `text` occurs at least `count` times; returns that screen. */
  async function waitForCount(text: string, count: number, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await terminal!.screen();
      if (screen.split(text).length - 1 >= count) return screen;
      if (Date.now() > deadline) throw new Error(`"${text}" did not appear ${count} times within ${timeoutMs} ms; the screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('chat asks a question as a choice mid-conversation and keeps the conversation going', { timeout: 120_000 }, async () => {
    const settings = devServerSettings();
    terminal = await Terminal.startCli(['chat'], { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue });
    await terminal.waitFor('you> ', 60_000);
    await terminal.type('Plan a picnic and ask me first');
    await terminal.press('Enter');

    await terminal.waitFor(`[Detail] ${question}`, 60_000);
    await terminal.press('Enter');
    await terminal.waitFor(`askUser answered: User has answered your questions: "${question}"="Short summary"`, 30_000);

    await waitForCount('you> ', 2, 10_000);
    await terminal.type('And a second message');
    await terminal.press('Enter');
    const screen = await waitForCount("I am Arbor's demo model", 2, 30_000);
    expect(screen).toContain('You asked: "And a second message"');

    await waitForCount('you> ', 3, 10_000);
    await terminal.type('/exit');
    await terminal.press('Enter');
    const exit = await terminal.waitForExit(30_000);
    expect(exit.code, exit.screen).toBe(0);
    expect(exit.screen).toMatch(/session \S+ stays open: arbor chat \S+ continues it\./);
  });
});
