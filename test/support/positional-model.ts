import type { FakeOpenAI, FakeReply, RecordedRequest } from './fake-openai.js';
import { firstUserMessage } from './scripted-model.js';

/**
 * A fake model that answers by the conversation's position, as a deterministic model would: each session (known
 * by its first user message) has a list of replies, and a request gets the one at the number of assistant messages
 * it already holds. A call retried after a lost worker gets the same reply again, unlike a script read in order.
 */
export class PositionalModel {
  private readonly scripts = new Map<string, FakeReply[]>();
  /** Called for every request as it arrives, with the session's instruction and the position answered. */
  onRequest: (instruction: string, position: number, reply: FakeReply | undefined) => void = () => {};

  constructor(fake: FakeOpenAI) {
    fake.fallback = (request) => {
      const instruction = firstUserMessage(request);
      const position = assistantMessages(request);
      const reply = this.scripts.get(instruction)?.[position];
      this.onRequest(instruction, position, reply);
      return reply ?? { content: `no reply at position ${position} for "${instruction}"` };
    };
  }

  script(instruction: string, ...replies: FakeReply[]): this {
    this.scripts.set(instruction, replies);
    return this;
  }
}

function assistantMessages(request: RecordedRequest): number {
  return request.body.messages.filter((message) => message.role === 'assistant').length;
}
