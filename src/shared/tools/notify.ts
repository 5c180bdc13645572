import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { checkLink, linkRefusal } from '../links.js';

export const notificationTypes = ['info', 'success', 'warning', 'error'] as const;

export const notifyUser = defineTool({
  name: 'notifyUser',
  description:
    'Post a notification to the user without waiting for an answer, e.g. that a long job finished. ' +
    'Use askUser instead when the answer changes what you do next.',
  input: () => notificationInput(),
});

/** The soai profile's notifyUser. */
export const notifyUserSoai = defineTool({
  name: 'notify_user',
  description:
    'Post to the notification centre without waiting for an answer (type info, success, warning or error, a title, a ' +
    'message, an optional source label and link), e.g. that a long job finished. Use ask_user when the answer changes ' +
    'what you do next.',
  input: () => notificationInput(),
});

function notificationInput() {
  return z.object({
    type: z.enum(notificationTypes).describe('info, success, warning or error'),
    title: z.string().trim().min(1).max(200),
    message: z.string().trim().min(1).max(4_000),
    source: z.string().trim().max(100).optional().describe('A short label of what the notice is about'),
    link: z
      .string()
      .trim()
      .max(2_000)
      .superRefine((link, context) => {
        const checked = checkLink(link);
        if (!checked.ok) context.addIssue({ code: 'custom', message: linkRefusal(link, checked.problem, checked.scheme) });
      })
      .optional()
      .describe('An http:// or https:// URL with more details; other schemes (javascript:, data:, ...) are refused'),
  });
}
