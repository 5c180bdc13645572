/**
 * C1 of issue 31: the web console. (1) Time from an event in the workflow (its `at`) to its appearance in a page in
 * headless Chromium (a MutationObserver notes when its row is added), for one session and for a tree of 100 sessions,
 * against a floor doing equal work in the same run: the SDK's own event reader of the same session seeing the same
 * event. (2) The console server's memory (its process's resident set) with 10 tabs open on the tree of 100, against the
 * same server with none. The console runs as `arbor console`, a process of its own, from the build in dist/.
 *   npm run build && npx tsx bench/console.ts [samples]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { ArborClient } from '../src/client/arbor-client.js';
import type { SessionHandle } from '../src/client/session-handle.js';
import { findFreePort } from '../src/temporal/dev-server.js';
import {
  benchArgs,
  createArborBenchWorker,
  firstUserText,
  historyWaiter,
  lastMessage,
  loadAverage,
  quietRuntime,
  sleep,
  startDevServer,
  startFakeModel,
  waitFor,
  writeResults,
} from './harness.js';
import { percentiles } from './stats.js';
import { workflowTaskUnderWay } from '../src/client/events/workflow-task-under-way.js';

quietRuntime();
const args = benchArgs();
const samples = args.size ?? 20;
const warmup = 2;
const treeSize = 100;
const tabs = 10;
const loadAtStart = loadAverage();
const root = fileURLToPath(new URL('..', import.meta.url));

const model = await startFakeModel((request) => {
  const task = firstUserText(request);
  const last = lastMessage(request);
  // The tree's root starts its sub-agents in one round; each sub-agent then waits for an hour (it stays running).
  if (task === 'Start the tree' && last?.role === 'user' && last.content === task) {
    const toolCalls = Array.from({ length: treeSize - 1 }, (_, index) => ({
      name: 'subAgent',
      arguments: JSON.stringify({ title: `Member ${index + 1}`, instruction: `Wait as member ${index + 1}`, mode: 'async' }),
    }));
    return { toolCalls };
  }
  if (task.startsWith('Wait as member') && last?.role === 'user') {
    return { toolCalls: [{ name: 'wait', arguments: JSON.stringify({ seconds: 3_600, reason: 'the bench' }) }] };
  }
  return { content: 'noted' };
});
const server = await startDevServer(args.server);
const taskQueue = 'bench-console';
const worker = await createArborBenchWorker(server.env, model, taskQueue);
const client = new ArborClient(server.env.client, taskQueue);

const measured = await worker.runUntil(measure);

async function measure() {
  const consolePort = await findFreePort('127.0.0.1');
  const consoleProcess = await startConsole(consolePort);
  const url = `http://127.0.0.1:${consolePort}/`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const single = await client.startSession({ instruction: 'Answer each message', title: 'Bench single' });
    await waitIdleAfter(single, 0);
    const singleRun = await latencies(browser, url, single, single);
    // Printed at once: the tree of 100 takes long on a loaded machine.
    console.table({
      'one session: page (ms after the event)': singleRun.page,
      'one session: floor, the SDK event reader': singleRun.floor,
    });

    const tree = await client.startSession({
      instruction: 'Start the tree',
      title: 'Bench tree',
      max_children: treeSize + 20,
      profile: 'all',
    });
    // A worker starting 99 sub-agents on a loaded machine can miss a query's deadline: ask again, not fail.
    const settled = (check: () => Promise<boolean>) => () => check().catch(() => false);
    await waitFor(
      settled(async () => (await tree.tree()).children.length === treeSize - 1),
      2_000,
    );
    await waitFor(
      settled(async () => {
        const members = (await tree.tree()).children;
        const snapshots = await Promise.all(members.map((member) => client.session(member.session_id).snapshot()));
        return snapshots.every((snapshot) => snapshot.waiting !== null && snapshot.waiting !== undefined);
      }),
      3_000,
    );
    await waitIdleAfter(tree, 0);

    const rssWithoutTabs = await residentKb(consoleProcess.pid!);
    const treeRun = await latencies(browser, url, tree, tree);
    // Ten tabs on the tree, each showing it; then the server's memory once they have settled.
    const pages: Page[] = [];
    for (let index = 0; index < tabs; index += 1) {
      const page = await browser.newPage();
      await page.goto(`${url}#/session/${tree.id}`);
      await page
        .locator('li.member')
        .nth(treeSize - 1)
        .waitFor({ timeout: 120_000 });
      pages.push(page);
    }
    await sleep(5_000);
    const rssWithTabs = await residentKb(consoleProcess.pid!);
    // One more message while the ten tabs watch: every one of them shows it.
    const shownInAll = await everyTabShows(pages, tree);
    await Promise.all(pages.map((page) => page.close()));
    return { singleRun, treeRun, rssWithoutTabs, rssWithTabs, shownInAll };
  } finally {
    await browser.close();
    consoleProcess.kill('SIGTERM');
  }
}

/** For each sample, a message sent to `target`: when its event (`message`, role user) shows in the page and in the SDK's reader. */
async function latencies(
  browser: Awaited<ReturnType<typeof chromium.launch>>,
  url: string,
  rootSession: SessionHandle,
  target: SessionHandle,
) {
  const page = await browser.newPage();
  await page.goto(`${url}#/session/${rootSession.id}`);
  await page.locator('.live-on').waitFor({ timeout: 120_000 });
  // Runs in the page (a string, so this file needs no DOM types): notes when each event's row is added.
  await page.evaluate(`(() => {
    const seen = (globalThis.__seen = {});
    new MutationObserver((records) => {
      const now = performance.timeOrigin + performance.now();
      for (const record of records)
        for (const node of record.addedNodes)
          if (node.dataset && node.dataset.seq) seen[node.dataset.session + ':' + node.dataset.seq] ??= now;
    }).observe(document.querySelector('.events ol'), { childList: true });
  })()`);
  const page_: number[] = [];
  const floor: number[] = [];
  for (let index = 0; index < samples + warmup; index += 1) {
    const after = (await target.snapshot()).last_event_seq;
    const callsBefore = (await modelCalls(target)).finished;
    const stop = new AbortController();
    const floorSeen = (async () => {
      for await (const event of target.events({ after, signal: stop.signal })) {
        if (event.type === 'message' && (event as { role?: string }).role === 'user')
          return { at: Date.parse(event.at), seq: event.seq, seenAt: Date.now() };
      }
      throw new Error('the event reader ended');
    })();
    await target.send(`sample ${index}`);
    const { at, seq, seenAt } = await floorSeen;
    stop.abort();
    const key = `${target.id}:${seq}`;
    await page.waitForFunction(
      (wanted) => (globalThis as unknown as { __seen: Record<string, number> }).__seen[wanted] !== undefined,
      key,
      {
        timeout: 120_000,
      },
    );
    const shownAt = await page.evaluate((wanted) => (globalThis as unknown as { __seen: Record<string, number> }).__seen[wanted]!, key);
    if (index >= warmup) {
      page_.push(shownAt - at);
      floor.push(seenAt - at);
    }
    await waitIdleAfter(target, callsBefore);
  }
  await page.close();
  // In order, so a slow sample can be placed (the first, or one every so often).
  console.log(`samples in order, ms: page ${page_.map(Math.round).join(' ')}; floor ${floor.map(Math.round).join(' ')}`);
  return { page: percentiles(page_), floor: percentiles(floor) };
}

async function everyTabShows(pages: Page[], tree: SessionHandle): Promise<boolean> {
  const message = `to every tab ${Date.now()}`;
  await tree.send(message);
  await Promise.all(pages.map((page) => page.locator('.events .event', { hasText: message }).first().waitFor({ timeout: 120_000 })));
  return true;
}

/**
 * How many model calls the session has finished, and whether it has settled (no activity or workflow task under way):
 * read from its history, so that waiting for a turn's end sends the worker no query beside the console's (queries side
 * by side during a workflow task are answered late, which would slow the console's reads, not measure them).
 */
async function modelCalls(session: SessionHandle): Promise<{ finished: number; settled: boolean }> {
  const events = (await client.temporal.workflow.getHandle(session.id).fetchHistory()).events ?? [];
  const activityTypes = new Map(
    events.flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      return scheduled ? [[String(event.eventId), scheduled.activityType?.name]] : [];
    }),
  );
  const ends = events.flatMap((event) => {
    const end =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    return end
      ? [{ type: activityTypes.get(String(end.scheduledEventId)), completed: Boolean(event.activityTaskCompletedEventAttributes) }]
      : [];
  });
  return {
    finished: ends.filter((end) => end.completed && end.type === 'callModel').length,
    settled: ends.length === activityTypes.size && !workflowTaskUnderWay(events.at(-1)),
  };
}

async function waitIdleAfter(session: SessionHandle, callsBefore: number): Promise<void> {
  await historyWaiter(
    client.temporal,
    session.id,
  )(async () => {
    const calls = await modelCalls(session);
    return calls.settled && calls.finished > callsBefore;
  });
}

async function startConsole(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/arbor.js', 'console', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, TEMPORAL_ADDRESS: server.env.address, ARBOR_TASK_QUEUE: taskQueue },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await waitFor(() => out.includes('Arbor console:'), 50, 60_000);
  return child;
}

async function residentKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]);
}

await server.teardown();
await model.fake.stop();

console.table({
  'one session: page (ms after the event)': measured.singleRun.page,
  'one session: floor, the SDK event reader': measured.singleRun.floor,
  [`tree of ${treeSize}: page`]: measured.treeRun.page,
  [`tree of ${treeSize}: floor, the SDK event reader`]: measured.treeRun.floor,
});
const mb = (kb: number) => Math.round(kb / 102.4) / 10;
console.log(
  `C1 console server memory, tree of ${treeSize}: ${mb(measured.rssWithoutTabs)} MB resident with its feed and no tab, ` +
    `${mb(measured.rssWithTabs)} MB with ${tabs} tabs open (+${mb(measured.rssWithTabs - measured.rssWithoutTabs)} MB); ` +
    `a message shown in every tab: ${measured.shownInAll}`,
);
const file = await writeResults('console', {
  benchmark: 'C1 the web console',
  server: args.server,
  samples,
  warmup,
  load_average_at_start: loadAtStart,
  tree_size: treeSize,
  event_to_page_ms: { single: measured.singleRun, tree: measured.treeRun },
  console_rss_kb: { no_tabs: measured.rssWithoutTabs, [`${tabs}_tabs`]: measured.rssWithTabs },
});
console.log(`results: ${file}`);
