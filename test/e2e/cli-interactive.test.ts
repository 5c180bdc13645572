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
