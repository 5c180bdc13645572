import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { notifyUser } from '../../shared/tools/notify.js';
import type { ToolContext } from './tool-context.js';

/** A notice for the people watching: a transcript entry that `arbor run`/`chat` print and the model never sees. */
export function postNotification(args: ToolArgs<typeof notifyUser>, { state }: ToolContext): string {
  const details = [args.source ? `source: ${args.source}` : '', args.link ?? ''].filter(Boolean).join(', ');
  state.append({
    role: 'notice',
    name: 'notifyUser',
    content: `[${args.type}] ${args.title}: ${args.message}${details ? ` (${details})` : ''}`,
    turn: state.turn,
  });
  return 'Notification posted to the user.';
}
