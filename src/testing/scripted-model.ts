import { answerOf, errorAnswer, type ModelAnswer } from './model-answers.js';
import { summaryPrompt } from '../shared/compaction.js';
import type { ModelRequest, ModelStep, RequestMessage, ScriptItem } from './model-steps.js';

/** A function from each request to its answer, in place of a step list. */
export type ModelResponder = (request: ModelRequest) => ModelStep | Promise<ModelStep>;

interface Script {
  readonly label: string;
  readonly items: ScriptItem[];
  readonly total: number;
  readonly usedBy: number[];
}

/**
 * A model for tests: it answers each request with the next step of a script (or from a function), and records every
 * request. Sessions can have scripts of their own, chosen by their instruction, so concurrent sessions and sub-agents
 * do not take each other's steps. A request it cannot answer (a script run out, a step function that threw) is
 * answered with an HTTP 400 that ends the session's turn, and kept in `problems`; the kit's next helper throws it.
 */
export class ScriptedModel {
  readonly requests: ModelRequest[] = [];
  readonly problems: Error[] = [];
  private readonly main: Script | undefined;
  private readonly responder: ModelResponder | undefined;
  private readonly byInstruction = new Map<string, Script>();
  private counter = 0;
  private reported = 0;
  private readonly firstInstructions = new Map<string, string>();

  constructor(script: readonly ScriptItem[] | ModelResponder = []) {
    if (typeof script === 'function') this.responder = script;
    else this.main = newScript('the script', script);
  }

  /** Steps for the sessions whose instruction (first user message) is exactly `instruction`; replaces earlier ones. */
  forInstruction(instruction: string, ...steps: ScriptItem[]): this {
    this.byInstruction.set(instruction, newScript(`the script for instruction ${JSON.stringify(excerpt(instruction))}`, steps));
    return this;
  }

  /** The requests of the sessions with this instruction. */
  requestsFor(instruction: string): ModelRequest[] {
    return this.requests.filter((request) => request.instruction === instruction);
  }

  /** Steps not yet used, across every script. */
  get remainingSteps(): number {
    let left = this.main?.items.length ?? 0;
    for (const script of this.byInstruction.values()) left += script.items.length;
    return left;
  }

  /**
   * Throws the first problem not thrown before, if any: each is thrown once, so one test's bad script does not fail
   * the later tests of an environment they share (`problems` keeps them all).
   */
  assertNoProblems(): void {
    const problem = this.problems[this.reported];
    if (!problem) return;
    this.reported += 1;
    throw problem;
  }

  /**
   * The answer to one chat-completions request body. With the session's id (the X-Arbor-Session-Id header the kit's
   * worker sends), a session keeps the instruction it was first seen with, even once its transcript no longer starts
   * with it (after a continue-as-new that trimmed it).
   */
  async answer(body: unknown, sessionId?: string): Promise<ModelAnswer> {
    if (isSummaryRequest(body)) return this.answerSummary(body, sessionId);
    const request = toModelRequest(
      body,
      this.requests.length + 1,
      sessionId,
      sessionId ? this.firstInstructions.get(sessionId) : undefined,
    );
    if (sessionId && !this.firstInstructions.has(sessionId)) this.firstInstructions.set(sessionId, request.instruction);
    this.requests.push(request);
    const counter = ++this.counter;
    let step: ModelStep;
    try {
      step = await this.nextStep(request);
    } catch (error) {
      const problem =
        error instanceof ScriptProblem ? error : new ScriptProblem(`${describeRequest(request)}: ${String(error)}`, { cause: error });
      this.problems.push(problem);
      return errorAnswer(400, problem.message);
    }
    if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
    return answerOf(step, request.model, counter);
  }

  /**
   * Requests for a conversation summary (see "Compaction" in the README): answered by `summarize` when set, else with
   * a summary of the kit's own. They take no step of any script and are kept in `summaryRequests`, not `requests`.
   */
  summarize: ModelResponder | undefined;
  readonly summaryRequests: ModelRequest[] = [];

  private async answerSummary(body: unknown, sessionId: string | undefined): Promise<ModelAnswer> {
    const request = toModelRequest(body, this.summaryRequests.length + 1, sessionId, undefined);
    this.summaryRequests.push(request);
    const counter = ++this.counter;
    try {
      const step = this.summarize
        ? checkedStep(await this.summarize(request), `the summarize answer to ${describeRequest(request)}`)
        : { text: `(scripted summary) ${excerpt(request.lastUserMessage.replace(/\s+/g, ' '))}` };
      return answerOf(step, request.model, counter);
    } catch (error) {
      const problem =
        error instanceof ScriptProblem ? error : new ScriptProblem(`${describeRequest(request)}: ${String(error)}`, { cause: error });
      this.problems.push(problem);
      return errorAnswer(400, problem.message);
    }
  }

  private async nextStep(request: ModelRequest): Promise<ModelStep> {
    const script = this.byInstruction.get(request.instruction) ?? this.main;
    if (!script) return checkedStep(await this.responder!(request), `the responder's answer to ${describeRequest(request)}`);
    const item = script.items.shift();
    if (item === undefined) {
      const used =
        script.usedBy.length === 0 ? 'no request used any' : `requests ${script.usedBy.map((n) => `#${n}`).join(', ')} used them`;
      throw new ScriptProblem(
        `Scripted model: ${describeRequest(request)} found no step left in ${script.label}: it has ${script.total} step(s) and ${used}.`,
      );
    }
    script.usedBy.push(request.number);
    const stepNumber = script.usedBy.length;
    const step = typeof item === 'function' ? await item(request) : item;
    return checkedStep(step, `step ${stepNumber} of ${script.label} (for ${describeRequest(request)})`);
  }
}

/** A script that ran out, a step that is not one, or a step function that threw. */
export class ScriptProblem extends Error {
  override name = 'ScriptProblem';
}

function isSummaryRequest(body: unknown): boolean {
  const messages = (body as { messages?: RequestMessage[] } | null)?.messages;
  return Array.isArray(messages) && messages[0]?.role === 'system' && messages[0].content === summaryPrompt;
}

function newScript(label: string, items: readonly ScriptItem[]): Script {
  items.forEach((item, index) => {
    if (typeof item !== 'function') checkedStep(item, `step ${index + 1} of ${label}`);
  });
  return { label, items: [...items], total: items.length, usedBy: [] };
}

function checkedStep(step: unknown, where: string): ModelStep {
  const known = typeof step === 'object' && step !== null && ['text', 'toolCalls', 'httpError', 'raw'].some((key) => key in step);
  if (!known) {
    throw new ScriptProblem(
      `Scripted model: ${where} is not a model step (give { text }, { toolCalls }, { httpError } or { raw }, or use text(), ` +
        `toolCall(), toolCalls(), httpError()): got ${JSON.stringify(step)}.`,
    );
  }
  const calls = (step as { toolCalls?: unknown }).toolCalls;
  if (calls !== undefined && (!Array.isArray(calls) || calls.some((call) => typeof (call as { name?: unknown })?.name !== 'string'))) {
    throw new ScriptProblem(
      `Scripted model: ${where} has toolCalls that are not a list of { name, arguments }: got ${JSON.stringify(calls)}.`,
    );
  }
  return step as ModelStep;
}

function describeRequest(request: ModelRequest): string {
  return (
    `request #${request.number} (model ${JSON.stringify(request.model)}, instruction ${JSON.stringify(excerpt(request.instruction))}, ` +
    `last user message ${JSON.stringify(excerpt(request.lastUserMessage))})`
  );
}

function excerpt(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function toModelRequest(
  body: unknown,
  number: number,
  sessionId: string | undefined,
  firstInstruction: string | undefined | '',
): ModelRequest {
  const {
    model,
    messages = [],
    tools = [],
  } = body as {
    model?: string;
    messages?: RequestMessage[];
    tools?: { function: { name: string; description: string; parameters: unknown } }[];
  };
  const users = messages.filter((message) => message.role === 'user');
  const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant');
  return {
    number,
    sessionId,
    model: model ?? '',
    system: messages.find((message) => message.role === 'system')?.content ?? '',
    messages,
    tools: tools.map((tool) => tool.function.name),
    toolSpecs: tools.map((tool) => tool.function),
    instruction: firstInstruction ?? users[0]?.content ?? '',
    lastUserMessage: users.at(-1)?.content ?? '',
    toolResults: messages
      .slice(lastAssistant + 1)
      .filter((message) => message.role === 'tool')
      .map((message) => parseIfJson(message.content ?? '')),
  };
}

function parseIfJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
