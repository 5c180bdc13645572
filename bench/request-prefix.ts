/**
 * The model request a session sends, call after call (issue 32, item 3): its size, the size of its tool specs (and
 * their approximate tokens, bytes / 3.5 as bench:profiles counts them), and how much of it repeats the request before
 * it byte for byte, which is what a provider's prompt cache can reuse (OpenAI caches the longest stable prefix
 * automatically and reports it as `cached_tokens`).
 *
 * The prefix is measured in the order a provider renders the prompt: the tool specs, then the messages (system prompt
 * first), each as the request's JSON carries it. One session per profile (rtc, the SDK's default, and all) runs 12
 * turns against the fake model on a dev server: each turn writes the todo list (a tool call) and answers. The floor
 * is the ideal: every request starts with the whole of the one before it (a share of 1.00 of the earlier request).
 *   npx tsx bench/request-prefix.ts
 */
import { SessionHandle } from '../src/client/session-handle.js';
import { sessionWorkflowType } from '../src/shared/session.js';
import type { RecordedRequest } from '../test/support/fake-openai.js';
import {
  createArborBenchWorker,
  firstUserText,
  lastMessage,
  quietRuntime,
  startDevServer,
  startFakeModel,
  writeResults,
} from './harness.js';
import { summary } from './stats.js';

quietRuntime();
const turns = 12;
const bytesPerToken = 3.5;
const profiles = ['rtc', 'all'] as const;

type RequestBody = RecordedRequest['body'];
const requestsBySession = new Map<string, RequestBody[]>();

const model = await startFakeModel((request) => {
  const task = firstUserText(request);
  const bodies = requestsBySession.get(task);
  bodies?.push(structuredClone(request.body));
  const last = lastMessage(request);
  if (last?.role === 'user' && /^turn (\d+)/.test(last.content ?? '')) {
    const turn = Number(/^turn (\d+)/.exec(last.content ?? '')![1]);
    const todos = Array.from({ length: 1 + (turn % 4) }, (_, index) => ({
      content: `Step ${index + 1} of turn ${turn}`,
      status: index === 0 ? 'in_progress' : 'pending',
    }));
    return { toolCalls: [{ name: 'todoWrite', arguments: JSON.stringify({ todos }) }] };
  }
  return { content: `Turn done: the list has what is next.` };
});

/** The prompt as a provider renders it: tool specs first, then the messages, in the request's own JSON. */
function promptOf(body: RequestBody): string {
  return JSON.stringify(body.tools ?? []) + body.messages.map((message) => JSON.stringify(message)).join('');
}

function commonPrefixLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

const server = await startDevServer('in-memory');
const worker = await createArborBenchWorker(server.env, model, 'bench-prefix');
const rows = await worker.runUntil(async () => {
  const out = [];
  for (const profile of profiles) {
    const task = `prefix bench ${profile} ${Date.now()}`;
    requestsBySession.set(task, []);
    const workflowId = `bench-prefix-${profile}-${Date.now()}`;
    await server.env.client.workflow.start(sessionWorkflowType, {
      taskQueue: 'bench-prefix',
      workflowId,
      args: [{ title: 'prefix', profile, instruction: task }],
    });
    const session = new SessionHandle(workflowId, server.env.client);
    await session.waitUntilIdle({ pollIntervalMs: 10 });
    for (let turn = 1; turn <= turns; turn++) {
      await session.waitUntilIdle({ messageId: await session.send(`turn ${turn}: plan the next steps`), pollIntervalMs: 10 });
    }
    const bodies = requestsBySession.get(task)!;
    const prompts = bodies.map(promptOf);
    const shares = prompts.slice(1).map((prompt, index) => commonPrefixLength(prompts[index]!, prompt) / prompt.length);
    const ofEarlier = prompts.slice(1).map((prompt, index) => commonPrefixLength(prompts[index]!, prompt) / prompts[index]!.length);
    const specBytes = bodies.map((body) => Buffer.byteLength(JSON.stringify(body.tools ?? [])));
    const requestBytes = bodies.map((body) => Buffer.byteLength(JSON.stringify(body)));
    const breaks = prompts.slice(1).flatMap((prompt, index) => {
      const at = commonPrefixLength(prompts[index]!, prompt);
      return at < prompts[index]!.length ? [{ request: index + 2, at, context: prompt.slice(Math.max(0, at - 60), at + 60) }] : [];
    });
    await server.env.client.workflow.getHandle(workflowId).terminate();
    out.push({
      profile,
      requests: bodies.length,
      request_bytes: summary(requestBytes),
      tool_spec_bytes: summary(specBytes),
      tool_spec_tokens_approx: Math.round(summary(specBytes).p50 / bytesPerToken),
      tools_per_request: bodies[0]?.tools?.length ?? 0,
      stable_prefix_share_of_request: summary(shares),
      stable_prefix_share_of_earlier_request: summary(ofEarlier),
      prefix_breaks: breaks,
    });
  }
  return out;
});
await server.teardown();
await model.fake.stop();

for (const row of rows) {
  console.log(
    `${row.profile}: ${row.requests} requests, request ${row.request_bytes.p50} bytes at p50 (max ${row.request_bytes.max}), ` +
      `tool specs ${row.tool_spec_bytes.p50} bytes (~${row.tool_spec_tokens_approx} tokens, ${row.tools_per_request} tools); ` +
      `stable prefix ${row.stable_prefix_share_of_request.p50} of the request at p50 (min ${row.stable_prefix_share_of_request.min}), ` +
      `${row.stable_prefix_share_of_earlier_request.p50} of the request before it (floor 1.00); ${row.prefix_breaks.length} requests did not start with the whole of the one before`,
  );
  for (const cut of row.prefix_breaks.slice(0, 3)) console.log(`  request ${cut.request} differs at ${cut.at}: …${cut.context}…`);
}
const file = await writeResults('request-prefix', { turns, bytes_per_token: bytesPerToken, rows });
console.log(`written ${file}`);
