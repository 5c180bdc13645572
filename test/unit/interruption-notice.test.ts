import { describe, expect, it } from 'vitest';
import { interruptionNotice } from '../../src/workflows/interruption-notice.js';

const nothing = {
  turn: 3,
  modelCallCancelled: false,
  toolCallsCancelled: [],
  toolCallsDropped: [],
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

  it('counts the sub-agents an interrupt stopped', () => {
    expect(interruptionNotice({ ...nothing, subAgentsStopped: 2 })).toBe(
      'Turn 3 was interrupted by a new message; cancelled 2 sub-agent(s).',
    );
  });
});
