import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineHostTool } from '../../src/tools.js';
import { startConsoleServer, type ConsoleServer } from '../../src/console/server.js';
import { checkAnswers } from '../../src/shared/answers.js';
import { createTestArbor, ScriptedModel, text, toolCall, type ModelStep, type TestArbor } from '../../src/testing.js';
import { readEventStream, type StreamedEvent } from '../support/event-stream.js';
import { buildConsolePage } from '../support/console-page.js';
import { FakeOpenAI } from '../support/fake-openai.js';
import { regionQuestion } from '../support/questions.js';

// ARBOR_CONSOLE_SCREENSHOTS=docs/console writes the README's screenshots; by default they go to scratch/.
const screenshots = process.env.ARBOR_CONSOLE_SCREENSHOTS
  ? join(process.cwd(), process.env.ARBOR_CONSOLE_SCREENSHOTS)
  : fileURLToPath(new URL('../../scratch/console-screenshots/', import.meta.url));
/** How long one step may wait for what comes through Temporal and a worker on a loaded 2-core machine. */
const stepTimeoutMs = 60_000;
/** A whole test: its steps rarely all wait long, but each may. */
const testTimeout = { timeout: 400_000 };
/** Dollars per million tokens for the scripted model, so usage has a cost. */
const prices = { scripted: { input: 2, output: 8 } };
const withUsage = (step: ModelStep, prompt_tokens: number, completion_tokens: number): ModelStep =>
  ({ ...step, usage: { prompt_tokens, completion_tokens } }) as ModelStep;

/** A tree member's row in the page, by its title and (optionally) the status it shows. */
const memberRow = (page: Page, title: string, status?: string) =>
  page
    .locator(`li.member${status ? `[data-status="${status}"]` : ''} > .member-row`)
    .filter({ has: page.getByRole('button', { name: title, exact: true }) });

/** The first `count` messages of a tree's event stream, read over HTTP as a browser's EventSource would. */
async function readStream(url: string, count: number, lastEventId?: string): Promise<StreamedEvent[]> {
  return (await readEventStream(url, (events) => events.length >= count, { lastEventId })).slice(0, count);
}

const wired: unknown[] = [];
const wireMoney = defineHostTool({
  name: 'wire_money',
  description: 'Wires money to an account.',
  input: z.object({ to: z.string(), eur: z.number() }),
  needsApproval: true,
  run: (args) => {
    wired.push(args);
    return { wired: args.eur };
  },
});

describe('the web console in a browser', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let console_: ConsoleServer;
  let browser: Browser;
  let assetsDir: string;

  beforeAll(async () => {
    await mkdir(screenshots, { recursive: true });
    [arbor, assetsDir, browser] = await Promise.all([
      createTestArbor({
        model,
        prices,
        tools: [wireMoney],
        server: { address: inject('temporalAddress') },
        workflowBundlePath: inject('workflowBundlePath'),
        waitTimeoutMs: 30_000,
      }),
      buildConsolePage(),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] }),
    ]);
    console_ = await startConsoleServer({ client: arbor.client, port: 0, assetsDir, webUiBase: 'http://127.0.0.1:8233' });
  });

  afterAll(async () => {
    await browser?.close();
    await console_?.close();
    await arbor?.teardown();
    if (assetsDir) await rm(dirname(assetsDir), { recursive: true, force: true });
  });

  const openSession = async (rootId: string): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // What the page waits for comes through Temporal and the worker, which a loaded 2-core machine can make slow.
    page.setDefaultTimeout(stepTimeoutMs);
    await page.goto(`${console_.url}#/session/${rootId}`);
    return page;
  };

  it(
    'shows the tree as sub-agents start, answers a question two levels down from the page, and the sub-agent goes on',
    testTimeout,
    async () => {
      model.forInstruction(
        'Plan the release',
        toolCall('subAgent', { title: 'Researcher', instruction: 'Research the regions', mode: 'async' }),
        text('The researcher is on it.'),
        text('Release planned.'),
      );
      model.forInstruction(
        'Research the regions',
        toolCall('subAgent', { title: 'Surveyor', instruction: 'Ask where to deploy', mode: 'sync' }),
        text('Research done.'),
      );
      model.forInstruction('Ask where to deploy', toolCall('askUser', { questions: [regionQuestion] }), text('Deploying to Europe.'));
      const root = await arbor.startSession({ profile: 'all', instruction: 'Plan the release', title: 'Release' });
      const page = await openSession(root.id);

      await memberRow(page, 'Surveyor', 'waiting_for_user').waitFor();
      await memberRow(page, 'Surveyor').getByText(`waits for your answer: ${regionQuestion.question}`).waitFor();
      const form = page.locator('form.question-set');
      await form.getByText('Surveyor').waitFor();
      await page.screenshot({ path: join(screenshots, 'session-question.png'), fullPage: true });

      // Sent with nothing chosen, the SDK refuses it with the CLI's words.
      await form.getByRole('button', { name: 'Answer' }).click();
      const refusal = checkAnswers([{ ...regionQuestion, multiSelect: false }], {});
      expect(refusal.ok).toBe(false);
      await form
        .getByRole('alert')
        .getByText(refusal.ok ? '' : refusal.error, { exact: true })
        .waitFor();

      await form.getByLabel('Europe').check();
      await form.getByRole('button', { name: 'Answer' }).click();
      await memberRow(page, 'Surveyor', 'completed').waitFor();
      await memberRow(page, 'Researcher', 'completed').waitFor();
      await page.locator('.questions').getByText('No questions or approvals wait.').waitFor();

      await page.getByRole('button', { name: 'Surveyor', exact: true }).click();
      await page.locator('.conversation .entry-assistant').getByText('Deploying to Europe.').waitFor();
      await page.locator('.member-panel a.web-ui').waitFor();
      expect(await page.locator('.member-panel a.web-ui').getAttribute('href')).toContain('/namespaces/default/workflows/');
      await page.locator('.events .event', { hasText: 'questions_answered' }).first().waitFor();
      await page.screenshot({ path: join(screenshots, 'session-answered.png'), fullPage: true });

      const list = await browser.newPage({ viewport: { width: 1280, height: 600 } });
      list.setDefaultTimeout(stepTimeoutMs);
      await list.goto(`${console_.url}#/`);
      await list.getByRole('link', { name: 'Release' }).first().waitFor();
      await Promise.all([page.close(), list.close()]);
    },
  );

  it('stops a subtree after a confirmation, and a reload shows every event again', testTimeout, async () => {
    model.forInstruction(
      'Start a waiting helper',
      toolCall('subAgent', { title: 'Sleeper', instruction: 'Wait for an hour', mode: 'async' }),
      text('The helper waits.'),
      text('The helper was stopped.'),
    );
    model.forInstruction('Wait for an hour', toolCall('wait', { seconds: 3_600, reason: 'an hour' }), text('Woke up.'));
    const root = await arbor.startSession({ profile: 'all', instruction: 'Start a waiting helper', title: 'Stopper' });
    const page = await openSession(root.id);

    await memberRow(page, 'Sleeper')
      .getByText(/waits for a timer until .* \(an hour\)/)
      .waitFor();
    await page.getByRole('button', { name: 'Sleeper', exact: true }).click();
    await page.locator('.member-panel h2', { hasText: 'Sleeper' }).waitFor();
    await page.getByRole('button', { name: 'Stop this session and its sub-agents…' }).click();
    await page.getByRole('alertdialog').screenshot({ path: join(screenshots, 'stop-confirm.png') });
    await page.getByRole('button', { name: 'Yes, stop' }).click();
    await memberRow(page, 'Sleeper', 'stopped').waitFor();
    await memberRow(page, 'Stopper', 'idle').waitFor();

    const events = page.locator('.events .event');
    await page.locator('.events .event', { hasText: 'sub_agent_finished' }).first().waitFor();
    const before = await events.allTextContents();
    await page.reload();
    await memberRow(page, 'Sleeper', 'stopped').waitFor();
    await page.locator('.events .event', { hasText: 'sub_agent_finished' }).first().waitFor();
    await page.waitForFunction(
      (count) =>
        (globalThis as unknown as { document: { querySelectorAll: (selector: string) => { length: number } } }).document.querySelectorAll(
          '.events .event',
        ).length >= count,
      before.length,
    );
    expect(await events.allTextContents()).toEqual(expect.arrayContaining(before));
    expect(console_.openFeeds()).toBeGreaterThanOrEqual(1);
    await page.close();
  });

  it('shows a model reply with script and HTML tags as text, running none of it', testTimeout, async () => {
    const reply = '<script>window.__owned = 1</script><b>bold</b><img src="x" onerror="window.__owned = 2">';
    model.forInstruction('Reply with markup', text(reply));
    const root = await arbor.startSession({ profile: 'all', instruction: 'Reply with markup', title: 'Markup' });
    await arbor.waitUntilIdle(root);
    const page = await openSession(root.id);

    const entry = page.locator('.conversation .entry-assistant .content');
    await entry.getByText(reply, { exact: true }).waitFor();
    expect(await entry.locator('script, b, img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __owned?: number }).__owned)).toBeUndefined();
    await page.locator('.events .event', { hasText: '<script>' }).first().waitFor();
    await page.screenshot({ path: join(screenshots, 'markup-as-text.png'), fullPage: true });
    await page.close();
  });

  it('marks a summary in the conversation with how many earlier entries it replaces, its text shown as text', testTimeout, async () => {
    model.forInstruction('Talk, then be summarized', text('First answer.'), text('Second answer.'), text('Third answer.'));
    model.summarize = () => text('<b>Two answers</b> were given.');
    const root = await arbor.startSession({ profile: 'all', instruction: 'Talk, then be summarized', title: 'Summarized' });
    await arbor.waitUntilIdle(root);
    for (const message of ['Go on.', 'Once more.']) await root.waitUntilIdle({ messageId: await root.send(message) });
    const receipt = await root.compact();
    model.summarize = undefined;
    expect(receipt.outcome).toBe('summarized');
    const entries = receipt.outcome === 'summarized' ? receipt.entries : 0;
    const page = await openSession(root.id);

    const summary = page.locator('.conversation .entry-summary');
    await summary.locator('.role').getByText(`Summary of ${entries} earlier entries, written on request`, { exact: true }).waitFor();
    await summary.locator('.content').getByText('<b>Two answers</b> were given.', { exact: true }).waitFor();
    expect(await summary.locator('b').count()).toBe(0);
    await page.close();
  });

  it('denies a tool call’s approval from the page, and the tool does not run', testTimeout, async () => {
    model.forInstruction('Pay the supplier', toolCall('wire_money', { to: 'DE89 3704', eur: 40 }), text('Not paid, as you said.'));
    const root = await arbor.startSession({ profile: 'all', instruction: 'Pay the supplier', title: 'Payer' });
    const page = await openSession(root.id);

    const form = page.locator('form.question-set');
    await form.getByText('Approval asked by').waitFor();
    await form.getByText('wire_money', { exact: true }).waitFor();
    await page.screenshot({ path: join(screenshots, 'approval.png'), fullPage: true });
    await form.getByLabel('Deny').check();
    await form.getByRole('button', { name: 'Answer' }).click();

    await page.locator('.conversation .entry-assistant').getByText('Not paid, as you said.').waitFor();
    expect(wired).toEqual([]);
    await page.close();
  });

  it('shows what a tree spent in the list and on its page, and raises its budget from the page', testTimeout, async () => {
    model.forInstruction(
      'Spend and delegate',
      withUsage(toolCall('subAgent', { title: 'Counter', instruction: 'Count to three', mode: 'sync' }), 1_000, 100),
      withUsage(text('Counted.'), 2_000, 200),
    );
    model.forInstruction('Count to three', withUsage(text('One, two, three.'), 500, 50));
    const root = await arbor.startSession({ profile: 'all', instruction: 'Spend and delegate', title: 'Spender', max_tokens: 20_000 });
    await arbor.waitUntilIdle(root);
    const page = await openSession(root.id);

    // (1,000 + 2,000 + 500) * 2 + (100 + 200 + 50) * 8 = 9,800 micro-dollars for 3,850 tokens.
    await page.locator('.usage .tree-usage').getByText('3,850 tokens · $0.00980').waitFor();
    await page.locator('.usage .budget').getByText('20,000 tokens').waitFor();
    await memberRow(page, 'Counter').getByText('550 tokens · $0.00140').waitFor();
    await page.getByLabel('Max tokens').fill('0');
    await page.getByRole('button', { name: 'Set budget' }).click();
    await page
      .locator('.usage')
      .getByRole('status')
      .getByText(/^Invalid budget: .*max_tokens/s)
      .waitFor();
    await page.getByLabel('Max tokens').fill('50000');
    await page.getByLabel('Max cost (USD)').fill('1.5');
    await page.getByRole('button', { name: 'Set budget' }).click();
    await page.locator('.usage .budget').getByText('50,000 tokens and $1.5000').waitFor();
    expect((await root.snapshot()).usage?.budget).toEqual({ max_tokens: 50_000, max_cost_usd: 1.5 });
    await page.screenshot({ path: join(screenshots, 'session-usage.png'), fullPage: true });

    const list = await browser.newPage({ viewport: { width: 1280, height: 600 } });
    list.setDefaultTimeout(stepTimeoutMs);
    await list.goto(`${console_.url}#/`);
    await list.getByLabel('Search titles').fill('Spender');
    // Visibility indexes the usage attributes a moment after the turn: the list refreshes every 5 s.
    const row = list.locator(`tr[data-session="${root.id}"]`);
    await row.locator('.tokens').getByText('3,850').waitFor();
    await row.locator('.cost').getByText('$0.00980').waitFor();
    await list.screenshot({ path: join(screenshots, 'sessions.png') });
    await Promise.all([page.close(), list.close()]);
  });

  it('creates, pauses, resumes and deletes an owner’s automations from the page', testTimeout, async () => {
    const owner = `console-page-${Date.now()}`;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(stepTimeoutMs);
    await page.goto(`${console_.url}#/automations?owner=${owner}`);
    await page.getByText(`${owner} has no automations.`).waitFor();

    const form = page.getByRole('form', { name: 'New automation' });
    await form.getByLabel('Title').fill('Weekly digest');
    await form.getByLabel('Prompt').fill('Summarise the week.');
    await form.getByLabel('Time zone').fill('Mars/Olympus');
    await form.getByLabel('First run (local)').fill('2031-01-06T09:00');
    await form.getByLabel('Repeats').selectOption('weekly');
    await form.getByRole('button', { name: 'Create' }).click();
    await page
      .getByRole('alert')
      .getByText(/Mars\/Olympus/)
      .waitFor();
    await form.getByLabel('Time zone').fill('Europe/Paris');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Created “Weekly digest”.').waitFor();
    const row = page.locator('tr.automation', { hasText: 'Weekly digest' });
    await row.getByText('weekly from 2031-01-06T09:00 (Europe/Paris)').waitFor();
    await row.getByText('active', { exact: true }).waitFor();
    await page.screenshot({ path: join(screenshots, 'automations.png'), fullPage: true });

    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByText('paused', { exact: true }).waitFor();
    expect((await arbor.client.automations(owner).list()).map((automation) => automation.enabled)).toEqual([false]);
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.getByText('active', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete…' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText(`${owner} has no automations.`).waitFor();
    expect(await arbor.client.automations(owner).list()).toEqual([]);
    await page.close();
  });

  it('shows the selected member’s answer as the model writes it, before the model has finished', testTimeout, async () => {
    // A model that streams, and holds its last chunk until the page has shown the others.
    const fake = new FakeOpenAI();
    await fake.start();
    const streaming = await createTestArbor({
      model: { baseURL: `${fake.baseURL}`, apiKey: 'sk-console-stream', defaultModel: 'streamer', requestTimeoutMs: 60_000 },
      server: { address: inject('temporalAddress') },
      workflowBundlePath: inject('workflowBundlePath'),
      waitTimeoutMs: 30_000,
    });
    const server = await startConsoleServer({ client: streaming.client, port: 0, assetsDir });
    let release: (() => void) | undefined;
    try {
      const lastChunk = new Promise<void>((resolve) => (release = resolve));
      const words = Array.from({ length: 30 }, (_, index) => `word${index} `);
      fake.reply({ content: words.join(''), chunks: words, chunkDelayMs: 20, beforeLastChunk: lastChunk });
      const root = await streaming.startSession({ instruction: 'Write slowly.', title: 'Writer' });
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(stepTimeoutMs);
      await page.goto(`${server.url}#/session/${root.id}`);

      const writing = page.getByLabel('Being written');
      await writing.getByText(/^word0 word1 .* word28 $/).waitFor();
      expect(await page.locator('.conversation .entry-assistant:not(.entry-writing)').count()).toBe(0);
      await page.screenshot({ path: join(screenshots, 'live-answer.png'), fullPage: true });
      release!();
      await page.locator('.conversation .entry-assistant:not(.entry-writing)').getByText(words.join('').trim()).waitFor();
      await writing.waitFor({ state: 'detached' });
      await page.close();
    } finally {
      release?.();
      await server.close();
      await streaming.teardown();
      await fake.stop();
    }
  });

  it('resumes a dropped stream after its Last-Event-ID without a gap, and replays everything for a feed it does not know', async () => {
    model.forInstruction('Say two things', text('One.'));
    const root = await arbor.startSession({ profile: 'all', instruction: 'Say two things', title: 'Resumer' });
    await arbor.waitUntilIdle(root);
    const url = `${console_.url}api/trees/${root.id}/events`;

    const first = await readStream(url, 4);
    const resumed = await readStream(url, 2, first[1]!.id);
    const unknownFeed = await readStream(url, 4, 'a-restarted-server.1:2');

    expect(resumed).toEqual(first.slice(2));
    expect(unknownFeed.map((message) => message.data)).toEqual(first.map((message) => message.data));
  });
});
