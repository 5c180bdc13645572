/**
 * Generated malformed tool calls for the bad-input fault test: every call must be refused (never run) and answered to
 * the model as a tool error. Each call carries the pattern its error must match.
 */

export interface MalformedCall {
  kind: 'unknown tool' | 'invalid JSON' | 'not an object' | 'wrong types' | 'missing fields' | 'huge strings' | 'provider types';
  /** As the provider sends it: the name and arguments may have the wrong types themselves. */
  name: unknown;
  arguments: unknown;
  /** Omitted ids are the provider's fault too; the activity names such calls itself. */
  id?: string;
  expected: RegExp;
}

const invalidArguments = (tool: string) => new RegExp(`^Error: Invalid arguments for ${tool}:`);
const unknownTool = /^Error: Unknown tool "/;
const invalidJson = /^Error: Arguments are not valid JSON \(.+\)\. Send a JSON object\.$/;

const big = (length: number, seed: string) => seed.repeat(Math.ceil(length / seed.length)).slice(0, length);

const unknownNames = [
  'launchRockets',
  'todowrite',
  'todoWrite ',
  ' planGet',
  'rm -rf /',
  'webSearch', // not offered: this worker has no search engine
  '',
  'ツールを使う',
  'name\u0000with\u0007controls',
  '../../etc/passwd',
  'functions.todoWrite',
  'todoWrite<|im_end|>',
];

const invalidJsonTexts = [
  '{"todos": [',
  "{'content': 'single quotes'}",
  '{content: "bare key"}',
  '{"a": 1,}',
  '{"a": 1}}',
  'NaN',
  'undefined',
  '{"content": "unterminated',
  '[1, 2',
  '\u0000\u0001\u0002',
  '{"todos": [{"content": "a", "status": "pending"}] trailing',
  '<tool_call>{"name": "todoWrite"}</tool_call>',
];

const notObjects = ['null', '42', '"just a string"', '[]', 'true', '[{"todos": []}]'];

/** Tools with at least one required field, called with wrong types. */
const wrongTypes: [string, unknown][] = [
  ['todoWrite', { todos: 'buy milk' }],
  ['todoWrite', { todos: [{ content: 5, status: 'pending' }] }],
  ['todoWrite', { todos: [{ content: 'a', status: 'sort of done' }] }],
  ['planWrite', { content: 42 }],
  ['planWrite', { content: { markdown: '# Plan' } }],
  ['wait', { seconds: 'soon' }],
  ['wait', { seconds: -5 }],
  ['saveMemory', { content: ['a', 'b'] }],
  ['saveMemory', { content: 'fine', tags: 'not-a-list' }],
  ['subAgent', { title: 1, instruction: {} }],
  ['subAgent', { title: 'T', instruction: 'I', mode: 'parallel' }],
  ['subAgent', { title: 'T', instruction: 'I', max_turns: 2.5 }],
  ['webFetch', { url: 5, prompt: null }],
  ['createLoop', { prompt: 'x', interval_seconds: 'often' }],
  ['notifyUser', { type: 'panic', title: 'T', message: 'M' }],
  ['TaskUpdate', { task_id: 7 }],
  ['TaskCreate', { subject: ['a'], description: 1 }],
  ['askUser', { questions: 'what?' }],
  ['CronCreate', { cron: 5, prompt: true }],
  ['createGoal', { condition: [], max_turns: 'many' }],
  ['searchMemory', { query: { $ne: null } }],
  ['stopSubAgent', { sub_session_id: 123 }],
  ['getSubAgentMessage', { sub_session_id: false }],
  ['listMemories', { limit: 'all' }],
  ['listMemories', { limit: 1e9 }],
  ['automation_run_wait', { run_id: 'r', timeout_ms: -1 }],
];

const missingFields: [string, unknown][] = [
  ['planWrite', {}],
  ['planWrite', { title: 'only a title' }],
  ['saveMemory', {}],
  ['subAgent', { title: 'No instruction' }],
  ['subAgent', { instruction: 'No title' }],
  ['askUser', {}],
  ['TaskGet', {}],
  ['TaskCreate', { description: 'no subject' }],
  ['CronCreate', { cron: '* * * * *' }],
  ['createLoop', { prompt: 'no interval' }],
  ['webFetch', { prompt: 'no url' }],
  ['webFetch', { url: 'https://example.org' }],
  ['notifyUser', { title: 'T' }],
  ['sendMessageToSubAgent', { message: 'hi' }],
  ['automation_create', { title: 'x' }],
  ['completeGoal', {}],
  ['updateMemory', { content: 'no id' }],
  ['deleteMemory', {}],
  ['cancelLoop', {}],
  ['CronDelete', {}],
  ['planWrite', ''], // empty arguments mean {}
  ['saveMemory', '   '],
];

/** Strings over each field's limit; kept to a few tens of kilobytes so one round's answer stays well under 1 MB. */
const hugeStrings: [string, (index: number) => unknown][] = [
  ['planWrite', (i) => ({ content: big(50_001 + i, 'plan ') })],
  ['saveMemory', (i) => ({ content: big(4_001 + i, 'memory ') })],
  ['subAgent', (i) => ({ title: big(101 + i, 'title '), instruction: 'ok' })],
  ['notifyUser', (i) => ({ type: 'info', title: 'T', message: big(4_001 + i, 'note ') })],
  ['createGoal', (i) => ({ condition: big(2_001 + i, 'goal ') })],
  ['CronCreate', (i) => ({ cron: '0 9 * * *', prompt: big(10_001 + i, 'cron ') })],
  ['TaskCreate', (i) => ({ subject: 'S', description: big(10_001 + i, 'task ') })],
  ['searchMemory', (i) => ({ query: big(1_001 + i, 'query ') })],
  [
    'askUser',
    (i) => ({
      questions: [
        {
          question: `${big(1_001 + i, 'why ')}?`,
          header: 'H',
          options: [
            { label: 'a', description: 'a' },
            { label: 'b', description: 'b' },
          ],
        },
      ],
    }),
  ],
];

/** Mistakes in the tool call itself, as a careless OpenAI-compatible server might send them. */
const providerTypes: Omit<MalformedCall, 'kind' | 'expected'>[] = [
  { name: 42, arguments: '{}' },
  { name: null, arguments: '{}' },
  { name: ['todoWrite'], arguments: '{}' },
  { name: 'planWrite', arguments: { content: 7 } }, // arguments as an object, not text
  { name: 'saveMemory', arguments: {} },
  { name: 'planWrite', arguments: 12345 },
  { name: 'TaskGet', arguments: null },
  { name: 'subAgent', arguments: ['title', 'instruction'] },
  { name: 'planWrite', arguments: { content: 9 } }, // no id
];

/** `count` malformed calls cycling through every kind, with variations so no two in a row are alike. */
export function malformedCalls(count: number): MalformedCall[] {
  const calls: MalformedCall[] = [];
  const kinds = 7;
  for (let i = 0; calls.length < count; i++) {
    const n = Math.floor(i / kinds);
    switch (i % kinds) {
      case 0: {
        // Every tenth unknown name is enormous; the activity cuts it, so the error stays small.
        const name =
          n % 10 === 9 ? big(100_000, `tool${n}`) : `${unknownNames[n % unknownNames.length]}${n >= unknownNames.length ? `_${n}` : ''}`;
        calls.push({ kind: 'unknown tool', name, arguments: '{}', expected: unknownTool });
        break;
      }
      case 1: {
        const text = invalidJsonTexts[n % invalidJsonTexts.length]!;
        calls.push({
          kind: 'invalid JSON',
          name: ['todoWrite', 'planWrite', 'saveMemory', 'subAgent'][n % 4],
          arguments: text,
          expected: invalidJson,
        });
        break;
      }
      case 2: {
        const tool = ['planWrite', 'subAgent', 'saveMemory', 'TaskCreate', 'createGoal'][n % 5]!;
        calls.push({ kind: 'not an object', name: tool, arguments: notObjects[n % notObjects.length], expected: invalidArguments(tool) });
        break;
      }
      case 3: {
        const [tool, args] = wrongTypes[n % wrongTypes.length]!;
        calls.push({ kind: 'wrong types', name: tool, arguments: JSON.stringify(args), expected: invalidArguments(tool) });
        break;
      }
      case 4: {
        const [tool, args] = missingFields[n % missingFields.length]!;
        calls.push({
          kind: 'missing fields',
          name: tool,
          arguments: typeof args === 'string' ? args : JSON.stringify(args),
          expected: invalidArguments(tool),
        });
        break;
      }
      case 5: {
        const [tool, make] = hugeStrings[n % hugeStrings.length]!;
        calls.push({ kind: 'huge strings', name: tool, arguments: JSON.stringify(make(n)), expected: invalidArguments(tool) });
        break;
      }
      default: {
        const call = providerTypes[n % providerTypes.length]!;
        // A name that is not text names no tool; arguments that are not text are read as their JSON.
        const expected = typeof call.name === 'string' ? invalidArguments(call.name) : unknownTool;
        calls.push({ kind: 'provider types', ...call, expected });
      }
    }
  }
  return calls;
}

/** A chat completion body carrying the calls as given (wrong types and all), each with an id unless the provider left it out. */
export function completionBody(calls: MalformedCall[], round: number): string {
  return JSON.stringify({
    id: `chatcmpl-malformed-${round}`,
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call, index) => ({
            ...(call.kind === 'provider types' && index % 2 === 0 ? {} : { id: `r${round}_${index}` }),
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        },
      },
    ],
  });
}
