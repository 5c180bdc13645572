import { describe, expect, it } from 'vitest';
import { interruptionNotice } from '../../src/workflows/interruption-notice.js';

const nothing = {
  turn: 3,
  modelCallCancelled: false,
  toolCallsCancelled: [],
  toolCallsDropped: [],
  toolCallsWaitedFor: [],
  subAgentsStopped: 0,
  subAgentsKeepRunning: false,
};

describe('the notice of an interrupted turn', () => {
  it('names what was cancelled and says running sub-agents go on', () => {
    expect(interruptionNotice({ ...nothing, modelCallCancelled: true, toolCallsCancelled: ['webFetch'], subAgentsKeepRunning: true })).toBe(
      'Turn 3 was interrupted by a new message; cancelled the model call, the webFetch call. Sub-agents keep running.',
    );
  });

  it('says a reply that came with the interrupt kept its text but its tool calls were not made, naming them', () => {
    expect(interruptionNotice({ ...nothing, toolCallsDropped: ['todoWrite', 'slow_survey'] })).toBe(
      "Turn 3 was interrupted by a new message. The model's last reply was kept, but the tool calls it asked for were not made: todoWrite, slow_survey.",
    );
  });

  it('names the calls it waited for, because their tools cannot be cancelled, apart from those it cancelled', () => {
    expect(interruptionNotice({ ...nothing, toolCallsCancelled: ['slow_survey'], toolCallsWaitedFor: ['stock_count'] })).toBe(
      'Turn 3 was interrupted by a new message; cancelled the slow_survey call. Waited for the stock_count call to finish and kept its result (its tool cannot be cancelled).',
    );
    expect(interruptionNotice({ ...nothing, toolCallsWaitedFor: ['stock_count', 'price_quote'] })).toBe(
      'Turn 3 was interrupted by a new message. Waited for the stock_count call, the price_quote call to finish and kept their results (their tools cannot be cancelled).',
    );
  });

  it('counts the sub-agents an interrupt stopped', () => {
    expect(interruptionNotice({ ...nothing, subAgentsStopped: 2 })).toBe(
      'Turn 3 was interrupted by a new message; cancelled 2 sub-agent(s).',
    );
  });
});
