import { Command } from 'commander';
import { checkSessionId } from '../../client/session-id.js';
import { createOutput } from '../output.js';
import { connectionSettingsFrom, withConnectionFlags, type ConnectionFlags } from '../options.js';
import { renderLoops } from '../render.js';
import { flattenMembers, readTreeMembers } from '../tree-members.js';
import { withClient } from '../with-client.js';

export const loopsCommand = withConnectionFlags(
  new Command('loops')
    .description('the loops and goals of a session and of every sub-agent below it: state, firings, next fire time')
    .argument('<session-id>', 'the session id (or a unique start of it)', checkSessionId)
    .option('--json', 'print one JSON object'),
).action(async (sessionId: string, flags: ConnectionFlags & { json?: boolean }) => {
  const output = createOutput(Boolean(flags.json));
  await withClient(connectionSettingsFrom(flags), async (client) => {
    sessionId = (await client.findSession(sessionId)).id;
    const walked = flattenMembers(await readTreeMembers(client, sessionId));
    const members = walked.flatMap(({ snapshot }) => (snapshot ? [snapshot] : []));
    const unanswered = walked.flatMap((member) =>
      member.unanswered === undefined ? [] : [{ session_id: member.session_id, title: member.title, reason: member.unanswered }],
    );
    const tagged = <T>(items: (snapshot: (typeof members)[number]) => T[]) =>
      members.flatMap((snapshot) =>
        items(snapshot).map((item) => ({ ...item, session_id: snapshot.session_id, session_title: snapshot.title })),
      );
    const loops = tagged((snapshot) => snapshot.loops);
    const goals = tagged((snapshot) => snapshot.goals);
    const text: string[] = [];
    for (const [index, snapshot] of members.entries()) {
      if (index > 0 && snapshot.loops.length === 0 && snapshot.goals.length === 0) continue;
      if (members.length > 1) text.push(`${index === 0 ? '' : '\n'}${snapshot.title} (${snapshot.session_id})`);
      text.push(
        ...renderLoops(snapshot.loops),
        ...snapshot.goals.map(
          (goal) => `goal ${goal.goal_id} [${goal.status}] ${goal.completed_turns}/${goal.max_turns} turns: ${goal.condition}`,
        ),
      );
    }
    for (const member of unanswered)
      text.push(`\n${member.title} (${member.session_id}): its loops and goals are not known; it could not answer: ${member.reason}`);
    output.result({ session_id: sessionId, loops, goals, ...(unanswered.length > 0 ? { unanswered } : {}) }, text.join('\n'));
  });
});
