import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { renderLoops } from '../render.js';
import { withClient } from '../with-client.js';

export const loopsCommand = withConnectionFlags(
  new Command('loops')
    .description("a session's loops and goals: state, firings, next fire time")
    .argument('<session-id>', 'the session id (a UUID)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ConnectionFlags & { json?: boolean }) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    const { loops, goals } = await client.session(sessionId).snapshot();
    const goalLines = goals.map(
      (goal) => `goal ${goal.goal_id} [${goal.status}] ${goal.completed_turns}/${goal.max_turns} turns: ${goal.condition}`,
    );
    output.result({ session_id: sessionId, loops, goals }, [...renderLoops(loops), ...goalLines].join('\n'));
  });
});
