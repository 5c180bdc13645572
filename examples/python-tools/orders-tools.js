// The Arbor side of the Python worker's tool: `arbor dev --tools examples/python-tools/orders-tools.js` serves it.
import process from 'node:process';
import { defineRemoteTool } from 'arbor/tools';

export const lookupOrder = defineRemoteTool({
  name: 'lookup_order',
  description: 'Looks up an order by its id (like A-1001): status, carrier and total.',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  taskQueue: process.env.ORDERS_TASK_QUEUE || 'orders-tools', // the Python worker's queue
});
