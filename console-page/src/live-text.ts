import type { StreamItem } from '../../src/shared/stream.js';

/** What one member's model is writing now: the text of its newest call attempt, and the tools it started calling. */
export interface Writing {
  turn: number;
  round: number;
  attempt: number;
  text: string;
  tools: string[];
}

/**
 * The next `Writing` of a member after one of its stream items, or null when nothing is being written: a turn that
 * ended, or a round whose tools returned, is in the transcript now. A retried attempt starts its round over.
 */
export function nextWriting(current: Writing | null, item: StreamItem): Writing | null {
  switch (item.type) {
    case 'text_delta':
    case 'tool_call_started':
    case 'retry': {
      const same = current && current.turn === item.turn && current.round === item.round && current.attempt === item.attempt;
      const base: Writing = same ? current : { turn: item.turn, round: item.round, attempt: item.attempt, text: '', tools: [] };
      if (item.type === 'text_delta') return { ...base, text: base.text + item.text };
      if (item.type === 'tool_call_started') return { ...base, tools: [...base.tools, item.name] };
      return base;
    }
    case 'tool_result':
    case 'turn_ended':
      return null;
    default:
      return current;
  }
}
