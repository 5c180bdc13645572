import { it } from 'vitest';
import { devServerSettings } from '../support/connection.js';
import { Terminal } from '../support/terminal.js';
it('dumps', { timeout: 90_000 }, async () => {
  const settings = devServerSettings();
  const t = await Terminal.startCli(['run', 'Plan a picnic, but ask me first.'], { TEMPORAL_ADDRESS: settings.address, ARBOR_TASK_QUEUE: settings.taskQueue });
  try {
    console.log('=== question\n' + await t.waitFor('How detailed', 60_000));
    await new Promise((r) => setTimeout(r, 1000));
    console.log('=== question +1s\n' + await t.screen());
    await t.press('Down'); await new Promise((r) => setTimeout(r, 300));
    console.log('=== after Down\n' + await t.screen());
    await t.press('Down', 'Enter'); await t.waitFor('Detail: your answer');
    await new Promise((r) => setTimeout(r, 300));
    console.log('=== other\n' + await t.screen());
    await t.type('Only the shopping list'); await t.press('Enter');
    console.log('=== exit\n' + (await t.waitForExit(60_000)).screen);
  } finally { await t.kill(); }
});
