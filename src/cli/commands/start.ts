import { Command } from 'commander';
import { withClient } from '../with-client.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, nonEmptyText, ownerId, positiveInteger, withConnectionFlags, type ConnectionFlags } from '../options.js';

export interface SessionFlags extends ConnectionFlags {
  title?: string;
  model?: string;
  maxToolRounds?: number;
  owner?: string;
  json?: boolean;
}

export function withSessionFlags(command: Command): Command {
  return withConnectionFlags(command)
    .option('--title <title>', 'session title (default: the start of the instruction)')
    .option('--model <name>', "model for this session (default: the worker's ARBOR_MODEL)")
    .option('--max-tool-rounds <n>', 'model calls allowed in one turn', positiveInteger('--max-tool-rounds'))
    .option('--owner <id>', 'whose memories the session uses (default "default")', ownerId)
    .option('--json', 'print one JSON object');
}

export function sessionOptionsFrom(instruction: string, flags: SessionFlags) {
  return {
    instruction,
    ...(flags.title ? { title: flags.title } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.maxToolRounds ? { max_tool_rounds: flags.maxToolRounds } : {}),
    ...(flags.owner ? { owner: flags.owner } : {}),
  };
}

export const startCommand = withSessionFlags(
  new Command('start')
    .description('start a root session and print its id without waiting')
    .argument('<instruction>', 'what the agent should do', nonEmptyText('The instruction')),
).action(async (instruction: string, flags: SessionFlags) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const session = await client.startSession(sessionOptionsFrom(instruction, flags));
    output.result({ session_id: session.id }, session.id);
  });
});
