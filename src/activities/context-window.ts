import { APIError } from 'openai';
import type OpenAI from 'openai';
import { providerMessage } from './model-errors.js';

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/**
 * Characters per token assumed when a context window is given in tokens. English prose runs at about four, code and
 * JSON nearer three; the lower figure errs towards leaving room. A provider's refusal corrects it (see
 * `budgetAfterOverflow`).
 */
export const charsPerToken = 3;

/** The share of a context window the request may fill; the rest is left for the model's answer. */
const requestShare = 0.85;

/** Per-message overhead in the size measure: role, ids and JSON punctuation. */
const messageOverhead = 20;

/** The least a kept message's content is cut to; below this a cut message says nothing. */
const minimumCutLength = 200;

/** Room kept for the note on what was left out, and the length of the marker in a cut message. */
const noteRoom = 200;
const markerLength = 90;

export interface FittedRequest {
  messages: ChatMessage[];
  /** Messages of the conversation not sent. */
  leftOut: number;
  /** Characters cut from the middle of long messages that were sent. */
  cutCharacters: number;
}

/** The size of a request's messages in the measure budgets use: characters of contents, tool calls and overhead. */
export function messagesSize(messages: readonly ChatMessage[]): number {
  let size = 0;
  for (const message of messages) size += messageSize(message);
  return size;
}

/** The request budget, in characters, for a context window given in tokens. */
export function budgetForContextTokens(tokens: number): number {
  return Math.floor(tokens * requestShare * charsPerToken);
}

/**
 * Fits a conversation to `budget` characters (see `messagesSize`). Kept, in this order of priority:
 * - the system prompt;
 * - the first user message (the session's instruction) and the latest one (what the model is working on now);
 * - the newest messages after the latest user message, then those before it, newest first, as long as they fit.
 *
 * An assistant message and the tool results answering it are kept or left out together, so the model never sees a
 * result without its call. What was left out is said in the system prompt. When what must be kept does not fit,
 * the longest contents are cut in their middle, with a marker saying so.
 */
export function fitToContext(messages: readonly ChatMessage[], budget: number): FittedRequest {
  if (messagesSize(messages) <= budget) return { messages: [...messages], leftOut: 0, cutCharacters: 0 };

  const system = messages[0]?.role === 'system' ? messages[0] : undefined;
  const units = groupIntoUnits(system ? messages.slice(1) : messages);
  const unitSize = units.map(messagesSize);
  const userUnits = units.flatMap((unit, index) => (unit[0]!.role === 'user' ? [index] : []));
  const firstUser = userUnits[0];
  const lastUser = userUnits.at(-1);
  const newest = units.length - 1;

  const kept = new Set<number>();
  for (const index of [firstUser, lastUser, newest]) if (index !== undefined && index >= 0) kept.add(index);
  let room = budget - (system ? messageSize(system) : 0) - noteRoom;
  for (const index of kept) room -= unitSize[index]!;

  // Newest first, stopping at the first that does not fit: a window with holes would confuse more than it saves.
  const after = lastUser ?? -1;
  for (let index = newest - 1; index > after && room > 0; index--) {
    if (unitSize[index]! > room) break;
    kept.add(index);
    room -= unitSize[index]!;
  }
  for (let index = after - 1; index >= 0 && room > 0; index--) {
    if (kept.has(index)) continue;
    if (unitSize[index]! > room) break;
    kept.add(index);
    room -= unitSize[index]!;
  }

  let leftOut = 0;
  const conversation: ChatMessage[] = [];
  units.forEach((unit, index) => {
    if (kept.has(index)) conversation.push(...unit);
    else leftOut += unit.length;
  });

  const note = leftOut > 0 ? leftOutNote(leftOut) : '';
  const head = withNote(system, note);
  const cut = cutToFit(conversation, budget - messagesSize(head));
  return { messages: [...head, ...cut.messages], leftOut, cutCharacters: cut.cutCharacters };
}

/**
 * A smaller request budget (characters, in `messagesSize`'s measure of the whole request) that should fit, from a
 * provider's refusal of a request of `sentSize` as too long for the model's context window (see
 * `isContextOverflow`). Understands the figures OpenAI, Anthropic-compatible and vLLM-style servers give, and falls
 * back to a bit over half of what was sent.
 */
export function budgetAfterOverflow(error: APIError, sentSize: number): number {
  const text = providerMessage(error);
  const limit = firstNumber(text, [
    /maximum context length is (\d+)/i,
    /context (?:length|window)(?: of| is|:)? (\d+)/i,
    /tokens? > (\d+)/i,
    /limit of (\d+) tokens/i,
  ]);
  const requested = firstNumber(text, [
    /resulted in (\d+) tokens/i,
    /requested (\d+) tokens/i,
    /prompt is too long: (\d+)/i,
    /(\d+) tokens? >/i,
    /(\d+) input tokens/i,
  ]);
  let budget = sentSize * 0.6;
  if (limit !== undefined && requested !== undefined && requested > limit) {
    budget = (sentSize * limit * requestShare) / requested;
  } else if (limit !== undefined) {
    budget = Math.min(sentSize * 0.8, budgetForContextTokens(limit));
  }
  return Math.floor(Math.min(budget, sentSize * 0.9));
}

/** Whether a provider refused a request as too long for the model's context window (or too large to take at all). */
export function isContextOverflow(error: unknown): error is APIError {
  if (!(error instanceof APIError)) return false;
  if (error.status === 413) return true;
  if (error.status !== 400 && error.status !== 422) return false;
  if (error.code === 'context_length_exceeded') return true;
  return /context[ _-]?(?:length|window)|maximum context|too many tokens|prompt is too long|input is too long|reduce the length/i.test(
    providerMessage(error),
  );
}

function leftOutNote(count: number): string {
  const what = count === 1 ? '1 earlier message of this conversation was' : `${count} earlier messages of this conversation were`;
  return `(${what} left out to fit the model's context window.)`;
}

function groupIntoUnits(conversation: readonly ChatMessage[]): ChatMessage[][] {
  const units: ChatMessage[][] = [];
  for (const message of conversation) {
    const last = units.at(-1);
    if (message.role === 'tool' && last && last[0]!.role === 'assistant') last.push(message);
    else units.push([message]);
  }
  return units;
}

function withNote(system: ChatMessage | undefined, note: string): ChatMessage[] {
  if (!note) return system ? [system] : [];
  if (!system) return [{ role: 'system', content: note }];
  const content = typeof system.content === 'string' ? system.content : '';
  return [{ role: 'system', content: content ? `${content}\n\n${note}` : note }];
}

/**
 * Cuts the longest string contents to one common length, the largest that makes the messages fit, keeping the head
 * and tail of each. Tool-call arguments are left whole: cut, they would no longer be the JSON the model wrote.
 */
function cutToFit(messages: ChatMessage[], budget: number): { messages: ChatMessage[]; cutCharacters: number } {
  const over = messagesSize(messages) - budget;
  if (over <= 0) return { messages, cutCharacters: 0 };
  const lengths = messages.map((message) => (typeof message.content === 'string' ? message.content.length : 0));
  const cap = lengthCap(lengths, over);
  let cutCharacters = 0;
  const cut = messages.map((message, index) => {
    const length = lengths[index]!;
    if (length <= cap || typeof message.content !== 'string') return message;
    const content = cutMiddle(message.content, cap);
    cutCharacters += length - content.length;
    return { ...message, content } as ChatMessage;
  });
  return { messages: cut, cutCharacters };
}

/** The largest length such that cutting every longer content to it removes at least `over` characters. */
function lengthCap(lengths: number[], over: number): number {
  const sorted = [...lengths].sort((a, b) => b - a);
  let removed = 0;
  for (let count = 1; count <= sorted.length; count++) {
    const next = sorted[count] ?? 0;
    // Cutting the `count` longest to `next` removes this much more.
    const step = (sorted[count - 1]! - next) * count;
    if (removed + step >= over) {
      const cap = sorted[count - 1]! - Math.ceil((over - removed) / count);
      return Math.max(minimumCutLength, cap - markerLength);
    }
    removed += step;
  }
  return minimumCutLength;
}

function cutMiddle(text: string, length: number): string {
  const headLength = Math.floor((length * 2) / 3);
  const tailLength = length - headLength;
  const left = text.length - headLength - tailLength;
  return `${text.slice(0, headLength)}\n[… ${left} characters left out to fit the model's context window …]\n${text.slice(text.length - tailLength)}`;
}

function messageSize(message: ChatMessage): number {
  let size = messageOverhead;
  if (typeof message.content === 'string') size += message.content.length;
  else if (Array.isArray(message.content)) size += JSON.stringify(message.content).length;
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) {
      if (call.type === 'function') size += call.id.length + call.function.name.length + call.function.arguments.length + messageOverhead;
    }
  }
  return size;
}

function firstNumber(text: string, patterns: RegExp[]): number | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}
