import type { ModelReply } from '../shared/model.js';
import type { MessageSource, ToolCall, TranscriptEntry } from '../shared/session.js';
import { sourceOfMessageId } from '../shared/message-sources.js';

const toolLine = /^\/tool\s+(\S+)\s*(.*)$/;

/**
 * Arbor's scripted demo model, for a newcomer with no model endpoint. Deterministic: its reply depends only on the
 * transcript. It plans the request with todoWrite, then answers; asked to "delegate", it runs a sync sub-agent
 * first; a request that says "ask" gets a question (askUser) before the plan; one that says "remember" is saved as a
 * memory and searched for again; one that says "goal" sets a goal, which the next (automatic) turn completes. A user line `/tool <name> <json arguments>` makes
 * it call exactly that tool with exactly those arguments, so every built-in tool can be reached from it. Those words
 * and lines count only in a person's messages: a message the session queued for itself (a sub-agent's notice, a loop
 * or cron firing, a goal continuation) often quotes them, and gets a plain acknowledgement (a goal continuation
 * completes its goal).
 */
export function demoReply(transcript: readonly TranscriptEntry[], toolNames: readonly string[]): ModelReply {
  const lastUserIndex = findLastIndex(transcript, (entry) => entry.role === 'user');
  const requestEntry = transcript[lastUserIndex];
  const request = requestEntry?.content ?? '';
  const source: MessageSource = requestEntry ? sourceOfMessageId(requestEntry.id) : 'user';
  const sinceRequest = transcript.slice(lastUserIndex + 1);
  const callId = (index: number) => `demo_${transcript.length}_${index}`;

  // A todo list and, when the session has planWrite, a written plan: two independent calls in one round.
  const plan = (): ModelReply => ({
    content: '(demo model) Let me plan this first.',
    tool_calls: [
      { id: callId(0), name: 'todoWrite', arguments: JSON.stringify({ todos: planFor(request) }) },
      ...(toolNames.includes('planWrite') ? [{ id: callId(1), name: 'planWrite', arguments: JSON.stringify(writtenPlan(request)) }] : []),
    ],
  });
  const replies = sinceRequest.filter((entry) => entry.role === 'assistant');
  if (replies.length === 0 && source !== 'user') {
    const continuedGoal = /^\[Goal continuation\][\s\S]*?- (goal-[0-9a-f]+) /.exec(request);
    if (source === 'goal' && continuedGoal && toolNames.includes('completeGoal')) {
      return {
        content: '(demo model) Checking the goal: the answer is written, so the goal is met.',
        tool_calls: [{ id: callId(0), name: 'completeGoal', arguments: JSON.stringify({ goal_id: continuedGoal[1] }) }],
      };
    }
    return { content: acknowledgement(source, request), tool_calls: [] };
  }
  if (replies.length === 0) {
    const explicit = explicitToolCalls(request, callId);
    if (explicit.length > 0) {
      return { content: `(demo model) Calling ${explicit.map((call) => call.name).join(', ')} as you asked.`, tool_calls: explicit };
    }
    if (toolNames.includes('subAgent') && /\bdelegate\b/i.test(request)) {
      const task = oneLine(request.replace(/\bdelegate\b/gi, 'hand over'), 200);
      return {
        content: '(demo model) I will hand this to a sub-agent and wait for it.',
        tool_calls: [
          {
            id: callId(0),
            name: 'subAgent',
            arguments: JSON.stringify({ title: 'Demo helper', instruction: `Help with: ${task}`, mode: 'sync' }),
          },
        ],
      };
    }
    if (toolNames.includes('createGoal') && /\bgoal\b/i.test(request)) {
      return {
        content: '(demo model) I will set this as a goal and keep working until it is met.',
        tool_calls: [
          {
            id: callId(0),
            name: 'createGoal',
            arguments: JSON.stringify({ condition: `An answer to: ${oneLine(request, 300)}`, max_turns: 3 }),
          },
        ],
      };
    }
    if (toolNames.includes('saveMemory') && /\bremember\b/i.test(request)) {
      const fact = oneLine(request.replace(/^.*?\bremember( that)?\b[\s:,]*/i, ''), 4_000) || oneLine(request, 4_000);
      return {
        content: '(demo model) I will remember that.',
        tool_calls: [{ id: callId(0), name: 'saveMemory', arguments: JSON.stringify({ content: fact, tags: ['demo'] }) }],
      };
    }
    if (toolNames.includes('askUser') && /\bask\b/i.test(request)) {
      return {
        content: '(demo model) Before I plan this, one question.',
        tool_calls: [{ id: callId(0), name: 'askUser', arguments: JSON.stringify({ questions: [detailQuestion] }) }],
      };
    }
    if (toolNames.includes('todoWrite')) return plan();
  }
  // Saved a memory: search for it, to show it can be found again.
  const savedOnly = replies.length === 1 && replies[0]!.tool_calls?.every((call) => call.name === 'saveMemory');
  if (savedOnly && toolNames.includes('searchMemory')) {
    return {
      content: '(demo model) Let me check it can be found.',
      tool_calls: [{ id: callId(0), name: 'searchMemory', arguments: JSON.stringify({ query: oneLine(request, 1_000), limit: 3 }) }],
    };
  }
  // Asked first (the request said "ask"): plan once the answer is in.
  const askedOnly = replies.length === 1 && replies[0]!.tool_calls?.every((call) => call.name === 'askUser');
  if (askedOnly && toolNames.includes('todoWrite')) return plan();
  return { content: finalAnswer(request, sinceRequest), tool_calls: [] };
}

const detailQuestion = {
  question: 'How detailed should my answer be?',
  header: 'Detail',
  options: [
    {
      label: 'Short summary',
      description: 'A few lines with the essentials',
      preview: 'Picnic for four:\n- sandwiches, fruit, lemonade\n- a blanket and a shady spot',
    },
    {
      label: 'Step by step',
      description: 'A full plan, one step at a time',
      preview: '1. Pick a park\n2. Shop the day before\n3. Pack the basket\n4. Go early',
    },
  ],
};

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

function writtenPlan(request: string) {
  const subject = oneLine(request, 200);
  return {
    title: oneLine(`Plan: ${subject}`, 100),
    content: [
      `# Plan`,
      '',
      `Request: ${subject}`,
      '',
      '1. Read the request',
      '2. Answer it',
      '3. Suggest connecting a real model',
      '',
    ].join('\n'),
  };
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

const sourceNames: Record<Exclude<MessageSource, 'user'>, string> = {
  'sub-agent': 'a sub-agent notice',
  loop: 'a loop firing',
  cron: 'a cron firing',
  goal: 'a goal continuation',
};

/** The reply to a message the session queued for itself: no tools, whatever words it quotes. */
function acknowledgement(source: Exclude<MessageSource, 'user'>, message: string): string {
  return [
    `I am Arbor's demo model: my replies are scripted, not generated. I read ${sourceNames[source]}: "${oneLine(message, 200)}".`,
    'I take requests (delegate, ask, remember, goal, /tool lines) only from your own messages.',
  ].join('\n');
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
