import type { FakeOpenAI, FakeReply, RecordedRequest } from './fake-openai.js';

export type ScriptStep = FakeReply | ((request: RecordedRequest) => FakeReply);

/**
 * Routes the fake model's replies by session: each session is recognised by its instruction (its first user
 * message) and gets its own script, one step per model call, in order.
 */
export class ScriptedModel {
  private readonly scripts = new Map<string, ScriptStep[]>();

  constructor(fake: FakeOpenAI) {
    fake.fallback = (request) => {
      const instruction = firstUserMessage(request);
      const step = this.scripts.get(instruction)?.shift();
      if (!step) return { content: `no script left for "${instruction}"` };
      return typeof step === 'function' ? step(request) : step;
    };
  }

  script(instruction: string, ...steps: ScriptStep[]): this {
    this.scripts.set(instruction, steps);
    return this;
  }
}

export function firstUserMessage(request: RecordedRequest): string {
  return request.body.messages.find((message) => message.role === 'user')?.content ?? '';
}

/** The JSON results of the tool messages in a request, in order. */
export function toolResults(request: RecordedRequest): string[] {
  return request.body.messages.filter((message) => message.role === 'tool').map((message) => message.content ?? '');
}

export function call(name: string, args: unknown): FakeReply {
  return { toolCalls: [{ name, arguments: JSON.stringify(args) }] };
}
