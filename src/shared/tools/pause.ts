import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const maxWaitSeconds = 7 * 24 * 60 * 60;

export const wait = defineTool({
  name: 'wait',
  waits: true,
  description:
    'Sleep on a durable timer instead of polling: give `seconds` (up to one week) or an ISO 8601 `until` timestamp ' +
    '(with `timezone` when it carries no offset), and a `reason` that labels the pause. A new user message ends the wait early.',
  input: () =>
    z
      .object({
        seconds: z.number().positive().max(maxWaitSeconds, 'A wait is at most one week (604800 seconds)').optional(),
        until: z.string().trim().min(1).optional().describe('ISO 8601 date-time, e.g. 2026-12-01T09:00:00+01:00'),
        timezone: z
          .string()
          .trim()
          .min(1)
          .optional()
          .describe('IANA time zone for an `until` without offset, e.g. Europe/Paris; not an offset such as UTC+5'),
        reason: z.string().trim().max(500).optional().describe('Why the agent waits'),
      })
      .refine((args) => (args.seconds === undefined) !== (args.until === undefined), {
        message: 'Give exactly one of `seconds` or `until`.',
      }),
});

export const stopConversation = defineTool({
  name: 'stopConversation',
  description: 'End the current turn cleanly, without another model call. The conversation stays open for the next message.',
  input: () => z.object({}),
});

/** The soai profile's stopConversation. */
export const stopConversationSoai = defineTool({
  name: 'stop_conversation',
  description: 'End the current model turn cleanly, without closing the conversation: it stays open for the next message.',
  input: () => z.object({}),
});
