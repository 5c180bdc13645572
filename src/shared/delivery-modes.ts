import { z } from 'zod';
import { lazy } from './lazy.js';

/**
 * How a message sent during a turn is delivered: `queue` waits for the turn to end, `steer` joins the running turn at
 * its next model call, `interrupt` cancels the running turn (its model call and what of its tool calls can be) and
 * starts a new turn with the message.
 */
export const deliveryModes = ['queue', 'steer', 'interrupt'] as const;
export type DeliveryMode = (typeof deliveryModes)[number];

export const deliveryModeSchema = lazy(() => z.enum(deliveryModes));
