import type { ModelReply } from '../shared/model.js';
import type { ToolCall, TranscriptEntry } from '../shared/session.js';

const toolLine = /^\/tool\s+(\S+)\s*(.*)$/;

/**
 * Arbor's scripted demo model, for a newcomer with no model endpoint. Deterministic: its reply depends only on the
 * transcript. It plans the request with todoWrite, then answers; asked to "delegate", it runs a sync sub-agent
 * first. A user line `/tool <name> <json arguments>` makes
 * it call exactly that tool with exactly those arguments, so every built-in tool can be reached from it.
 */
export function demoReply(transcript: readonly TranscriptEntry[], toolNames: readonly string[]): ModelReply {
  const lastUserIndex = findLastIndex(transcript, (entry) => entry.role === 'user');
  const request = transcript[lastUserIndex]?.content ?? '';
  const sinceRequest = transcript.slice(lastUserIndex + 1);
  const callId = (index: number) => `demo_${transcript.length}_${index}`;

  if (!sinceRequest.some((entry) => entry.role === 'assistant')) {
    const explicit = explicitToolCalls(request, callId);
    if (explicit.length > 0) {
      return { content: `(demo model) Calling ${explicit.map((call) => call.name).join(', ')} as you asked.`, tool_calls: explicit };
    }
    if (toolNames.includes('subAgent') && /\bdelegate\b/i.test(request)) {
      const task = oneLine(request.replace(/\bdelegate\b/gi, 'hand over'), 200);
      return {
        content: '(demo model) I will hand this to a sub-agent and wait for it.',
        tool_calls: [{ id: callId(0), name: 'subAgent', arguments: JSON.stringify({ title: 'Demo helper', instruction: `Help with: ${task}`, mode: 'sync' }) }],
      };
    }
    if (toolNames.includes('todoWrite')) {
      return {
        content: '(demo model) Let me plan this first.',
        tool_calls: [{ id: callId(0), name: 'todoWrite', arguments: JSON.stringify({ todos: planFor(request) }) }],
      };
    }
  }
  return { content: finalAnswer(request, sinceRequest), tool_calls: [] };
}

function explicitToolCalls(request: string, callId: (index: number) => string): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const line of request.split('\n')) {
    const match = toolLine.exec(line.trim());
    if (match) calls.push({ id: callId(calls.length), name: match[1]!, arguments: match[2] ?? '' });
  }
  return calls;
}

function planFor(request: string) {
  const subject = oneLine(request, 80);
  return [
    { content: 'Read the request', status: 'completed' },
    { content: `Answer: ${subject}`, status: 'in_progress', active_form: 'Answering the request' },
    { content: 'Suggest connecting a real model', status: 'pending' },
  ];
}

function finalAnswer(request: string, sinceRequest: readonly TranscriptEntry[]): string {
  const toolResults = sinceRequest.filter((entry) => entry.role === 'tool');
  const lines = [`I am Arbor's demo model: my replies are scripted, not generated. You asked: "${oneLine(request, 200)}".`];
  for (const result of toolResults) {
    lines.push(`${result.name} ${result.is_error ? 'returned an error' : 'answered'}: ${oneLine(result.content, 300)}`);
  }
  lines.push(
    'To get real answers, set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible endpoint) and ARBOR_MODEL for the worker.',
  );
  return lines.join('\n');
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
