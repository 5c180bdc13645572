import { describe, expect, it } from 'vitest';
import { devServerSettings } from '../support/connection.js';
import { runCli } from '../support/processes.js';

describe('a namespace the server does not have', () => {
  const settings = devServerSettings();
  const env = { TEMPORAL_ADDRESS: settings.address, TEMPORAL_NAMESPACE: 'no-such-namespace', ARBOR_TASK_QUEUE: settings.taskQueue };
  const hint = `The Temporal server at ${settings.address} has no namespace "no-such-namespace". Create it with \`temporal operator namespace create --namespace no-such-namespace --address ${settings.address}\``;

  it.each([
    ['list', ['list']],
    ['start', ['start', 'Plan a picnic']],
    ['worker', ['worker']],
  ])('is reported by %s with the command that creates it, not as NOT_FOUND', async (_name, args) => {
    const result = await runCli(args, env, 60_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(hint);
    expect(result.stderr).not.toContain('NOT_FOUND');
  });
});
