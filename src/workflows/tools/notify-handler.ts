import type { ToolArgs } from '../../shared/tools/define-tool.js';
import type { notifyUser } from '../../shared/tools/notify.js';
import type { ToolContext } from './tool-context.js';

/** A notice for the people watching: a notification event, and a transcript entry that the model never sees. */
export function postNotification(args: ToolArgs<typeof notifyUser>, { state }: ToolContext): string {
  const details = [args.source ? `source: ${args.source}` : '', args.link ?? ''].filter(Boolean).join(', ');
  state.append(
    {
      role: 'notice',
      name: 'notifyUser',
      content: `[${args.type}] ${args.title}: ${args.message}${details ? ` (${details})` : ''}`,
      turn: state.turn,
    },
    { emit: false },
  );
  state.events.emit({
    type: 'notification',
    notification_type: args.type,
    title: args.title,
    message: args.message,
    ...(args.source ? { source: args.source } : {}),
    ...(args.link ? { link: args.link } : {}),
  });
  return 'Notification posted to the user.';
}
