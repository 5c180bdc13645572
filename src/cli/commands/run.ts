import { inFlagTerms, sessionTerms } from '../flag-terms.js';
import { Command } from 'commander';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, nonEmptyText, positiveInteger } from '../options.js';
import { ensureLocalRuntime } from '../local-runtime.js';
import { followTurn } from '../follow-turn.js';
import { withClient } from '../with-client.js';
import { sessionOptionsFrom, toolModulesFrom, withSessionFlags, type SessionFlags } from './start.js';

interface RunFlags extends SessionFlags {
  timeout?: number;
  stream: boolean;
}

export const runCommand = withSessionFlags(
  new Command('run')
    .description('start a root session, show its progress, print the final answer and exit')
    .argument('<instruction>', 'what the agent should do', nonEmptyText('The instruction')),
)
  .option('--timeout <seconds>', 'give up waiting after this many seconds', positiveInteger('--timeout'))
  .option('--no-stream', 'print the answer only once it is complete, not as it is written')
  .action(async (instruction: string, flags: RunFlags) => {
    const output = createOutput(Boolean(flags.json));
    const runtime = await ensureLocalRuntime(connectionSettingsFrom(flags), (line) => output.progress(line), {
      toolModules: toolModulesFrom(flags),
    });
    try {
      await withClient(runtime.settings, async (client) => {
        const session = await inFlagTerms(sessionTerms, () => client.startSession(sessionOptionsFrom(instruction, flags)));
        output.progress(`session ${session.id}`);
        await followTurn(session, output, { afterEvent: 0, fromEntry: 0, timeoutSeconds: flags.timeout, stream: flags.stream });
      });
    } finally {
      await runtime.stop();
    }
  });
