/**
 * The console's server beyond its safety (console-security): usage and budgets, automations, a watched tree's views
 * served from what the server keeps, and the feed's memory cap. On the tests' dev server, with real visibility.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startConsoleServer, type ConsoleServer } from '../../src/console/server.js';
import { createTestArbor, ScriptedModel, text, toolCall, type ModelStep, type TestArbor } from '../../src/testing.js';
import { readEventStream } from '../support/event-stream.js';
import { waitUntil } from '../support/wait.js';
import { standInConsolePage } from '../support/stand-in-console-page.js';

const modelName = 'console-priced';
/** Dollars per million tokens. */
const prices = { [modelName]: { input: 2, output: 8 } };
const withUsage = (step: ModelStep, prompt_tokens: number, completion_tokens: number): ModelStep =>
  ({ ...step, usage: { prompt_tokens, completion_tokens } }) as ModelStep;
const csrfOf = (html: string) => /<meta name="arbor-csrf" content="([^"]+)">/.exec(html)?.[1] ?? '';

/** Reads a tree's event stream until `enough` says so (or 60 s pass), as a browser's EventSource would. */
async function readFeed(url: string, enough: (items: { id: string; data: unknown }[]) => boolean, lastEventId?: string) {
  const items: { id: string; data: unknown }[] = [];
  await readEventStream(
    url,
    (events) => {
      while (items.length < events.length) items.push({ id: events[items.length]!.id, data: JSON.parse(events[items.length]!.data) });
      return enough(items);
    },
    { lastEventId, timeoutMs: 60_000 },
  );
  return items;
}

describe('the console server’s API', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let server: ConsoleServer;
  let csrf: string;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model,
      modelName,
      prices,
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      waitTimeoutMs: 45_000,
    });
    // No page is built here: the API is what is tested (the HTML's CSRF secret comes with a stand-in page).
    const assetsDir = await standInConsolePage();
    server = await startConsoleServer({ client: arbor.client, port: 0, assetsDir, feedLimits: { maxItems: 6 } });
    csrf = csrfOf(await (await fetch(server.url)).text());
  });

  afterAll(async () => {
    await server?.close();
    await arbor?.teardown();
  });

  const get = async (path: string) => {
    const response = await fetch(new URL(path, server.url));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & unknown[] };
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(new URL(path, server.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Arbor-Console-Csrf': csrf },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('lists each root with the tokens and cost its tree used, and a session’s view shows them, its budget, and each member’s own', async () => {
    model.forInstruction(
      'Spend a little',
      withUsage(toolCall('subAgent', { title: 'Helper', instruction: 'Help a little', mode: 'sync' }), 1_000, 100),
      withUsage(text('Spent.'), 2_000, 200),
    );
    model.forInstruction('Help a little', withUsage(text('Helped.'), 500, 50));
    const session = await arbor.startSession({ profile: 'all', instruction: 'Spend a little', title: 'Spender', max_tokens: 100_000 });
    await arbor.waitUntilIdle(session);

    // (1,000 + 2,000 + 500) * 2 + (100 + 200 + 50) * 8 = 9,800 micro-dollars.
    let listed: Record<string, unknown> | undefined;
    await waitUntil(async () => {
      const { body } = await get(`api/sessions?title=Spender`);
      listed = (body as unknown as Record<string, unknown>[]).find((row) => row.session_id === session.id);
      return listed?.total_tokens === 3_850 && listed.cost_usd !== undefined;
    }, 30_000);
    expect(listed).toMatchObject({ title: 'Spender', total_tokens: 3_850, cost_usd: 0.0098 });

    const { status, body: view } = await get(`api/trees/${session.id}/view`);
    expect(status).toBe(200);
    const root = view.root as { usage: { tree: { total_tokens: number; cost_usd: number }; budget: unknown } };
    expect(root.usage.tree).toMatchObject({ total_tokens: 3_850, cost_usd: 0.0098 });
    expect(root.usage.budget).toEqual({ max_tokens: 100_000 });
    const tree = view.tree as { usage: { total_tokens: number }; children: { title: string; usage: { total_tokens: number } }[] };
    expect(tree.usage.total_tokens).toBe(3_300);
    expect(tree.children.map((child) => [child.title, child.usage.total_tokens])).toEqual([['Helper', 550]]);
  });

  it('raises a budget, and refuses one the SDK refuses with the SDK’s words', async () => {
    model.forInstruction('Wait for a budget', text('Waiting.'));
    const session = await arbor.startSession({ profile: 'all', instruction: 'Wait for a budget', title: 'Budgeted', max_tokens: 10 });
    await arbor.waitUntilIdle(session);

    const raised = await post(`api/sessions/${session.id}/budget`, { max_tokens: 50_000, max_cost_usd: 2.5 });
    expect(raised.status).toBe(200);
    expect(raised.body.budget).toEqual({ max_tokens: 50_000, max_cost_usd: 2.5 });
    expect((await session.snapshot()).usage?.budget).toEqual({ max_tokens: 50_000, max_cost_usd: 2.5 });

    const refused = await post(`api/sessions/${session.id}/budget`, { max_tokens: 0 });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/^Invalid budget: .*max_tokens/s);
    const notANumber = await post(`api/sessions/${session.id}/budget`, { max_tokens: 'lots' });
    expect(notANumber).toEqual({ status: 400, body: { error: 'max_tokens is a number of tokens.' } });
  });

  it('creates, lists, pauses, resumes and deletes an owner’s automations, and refuses a bad one with the SDK’s words', async () => {
    const owner = `console-${Date.now()}`;
    const path = (rest = '') => `api/automations${rest}?owner=${owner}`;
    const created = await post(path(), {
      title: 'Morning report',
      prompt: 'Write the morning report.',
      timezone: 'Europe/Berlin',
      start_local: '2031-01-01T08:00',
      recurrence: 'daily',
    });
    expect(created.status).toBe(200);
    const id = created.body.automation_id as string;
    expect(created.body).toMatchObject({ owner, title: 'Morning report', enabled: true, recurrence: 'daily' });

    expect(((await get(path())).body as { automation_id: string }[]).map((automation) => automation.automation_id)).toEqual([id]);
    expect((await post(path(`/${id}/pause`), {})).body.enabled).toBe(false);
    expect((await get(path())).body[0]).toMatchObject({ automation_id: id, enabled: false });
    expect((await post(path(`/${id}/resume`), {})).body.enabled).toBe(true);
    expect((await post(path(`/${id}/delete`), {})).body).toEqual({ automation_id: id, deleted: true });
    expect((await get(path())).body).toEqual([]);

    const refused = await post(path(), { title: 'Bad', prompt: 'x', timezone: 'UTC', start_local: 'tomorrow', recurrence: 'daily' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain('start_local is a local date and time of the form YYYY-MM-DDTHH:mm');
    expect((await post(path(`/automation-00000000-0000-0000-0000-000000000000/pause`), {})).status).toBe(422);
    expect((await get(`api/automations?owner=${encodeURIComponent('no spaces allowed')}`)).status).toBe(400);
  });

  it('serves a watched tree’s views from what it keeps, and asks again only the member whose events moved', async () => {
    model.forInstruction(
      'Keep a helper',
      toolCall('subAgent', { title: 'Finished helper', instruction: 'Finish at once', mode: 'sync' }),
      text('The helper finished.'),
      text('Second answer.'),
    );
    model.forInstruction('Finish at once', text('Finished.'));
    const session = await arbor.startSession({ profile: 'all', instruction: 'Keep a helper', title: 'Cached' });
    await arbor.waitUntilIdle(session);
    const feedUrl = new URL(`api/trees/${session.id}/events`, server.url).toString();
    const tab = readFeed(feedUrl, (items) => items.some((item) => JSON.stringify(item.data).includes('Second answer.')));
    await waitUntil(() => server.feedStats(session.id) !== undefined, 10_000);

    const view = () => get(`api/trees/${session.id}/view`);
    const asked = () => ({ ...server.feedStats(session.id)!.queries });
    // The feed's first reading of the tree's events moves every member once; then the views settle.
    let before = asked();
    // What moved, kept so that a wait that never settles says which members were asked again, and how often.
    const started = Date.now();
    const moves: string[] = [];
    await waitUntil(async () => {
      await view();
      const now = asked();
      const settled = JSON.stringify(now) === JSON.stringify(before);
      if (!settled) moves.push(`${Date.now() - started} ms: ${JSON.stringify(now)}, ${server.feedStats(session.id)!.items} items`);
      before = now;
      return settled;
    }, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}; the views' queries moved at ${moves.join(' | ')}`);
    });
    const child = ((await view()).body.tree as { children: { session_id: string }[] }).children[0]!.session_id;
    await Promise.all([view(), view(), view()]);
    expect(asked()).toEqual(before);

    await session.send('Answer again.');
    await arbor.waitUntilIdle(session);
    await tab;
    await waitUntil(async () => {
      const { body } = await view();
      return (body.member as { transcript: { content: string | null }[] }).transcript.some((entry) => entry.content === 'Second answer.');
    }, 30_000);
    const after = asked();
    expect(after[session.id]).toBeGreaterThan(before[session.id]!);
    // The finished helper moved no event: nobody asked it again.
    expect(after[child]).toBe(before[child]);
  });

  it('keeps only the newest items of a feed, and tells a tab whose position is older to read everything again', async () => {
    const todos = (content: string) => toolCall('todoWrite', { todos: [{ content, status: 'pending', activeForm: content }] });
    model.forInstruction('Write many todos', todos('a'), todos('b'), todos('c'), text('Done.'));
    const session = await arbor.startSession({ profile: 'all', instruction: 'Write many todos', title: 'Capped' });
    await arbor.waitUntilIdle(session);
    const feedUrl = new URL(`api/trees/${session.id}/events`, server.url).toString();

    const first = await readFeed(feedUrl, (items) => items.some((item) => JSON.stringify(item.data).includes('"Done."')));
    const numbers = first.map((item) => Number(item.id.split(':').pop()));
    // With a cap of 6 items, a tab that reconnects from the first item it saw is told what it lost.
    expect(numbers.at(-1)).toBeGreaterThan(7);
    const epoch = first[0]!.id.replace(/:\d+$/, '');
    const resumed = await readFeed(feedUrl, (items) => items.length >= 2, `${epoch}:1`);
    expect(resumed[0]!.data).toEqual({ kind: 'reset' });
    expect(Number(resumed[1]!.id.split(':').pop())).toBeGreaterThan(numbers.at(-1)! - 6);
    expect(server.feedStats(session.id)!.items).toBeLessThanOrEqual(6);
  });
});
