import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SessionHandle } from '../../src/client/session-handle.js';
import type { TranscriptEntry } from '../../src/shared/session.js';
import { demoModelName } from '../../src/shared/model.js';
import { createTestArbor, type TestArbor } from '../../src/testing.js';

describe('plan, wait and stopConversation (the testing kit on the time-skipping server, demo model)', () => {
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({
      model: { defaultModel: demoModelName, requestTimeoutMs: 5_000 },
      workflowBundlePath: inject('workflowBundlePath'),
    });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  const toolEntries = async (session: SessionHandle): Promise<TranscriptEntry[]> =>
    (await arbor.transcript(session)).filter((entry) => entry.role === 'tool');

  it('stores a plan up to 50,000 characters, refuses 50,001 leaving it unchanged, reads it back and clears it', async () => {
    const atLimit = 'p'.repeat(50_000);
    const overLimit = 'q'.repeat(50_001);
    const lines = [
      `/tool planWrite ${JSON.stringify({ content: atLimit, title: 'Big plan' })}`,
      `/tool planWrite ${JSON.stringify({ content: overLimit })}`,
      '/tool planGet {}',
    ];
    const session = await arbor.startSession({ profile: 'all', instruction: lines.join('\n') });
    const snapshot = await arbor.waitUntilIdle(session);
    const [saved, refused, read] = await toolEntries(session);
    expect(saved!.content).toBe('Plan saved: revision 1, 50000 characters.');
    expect(refused).toMatchObject({ is_error: true, content: expect.stringContaining('at most 50000 characters') });
    expect(JSON.parse(read!.content)).toEqual({ title: 'Big plan', revision: 1, size: 50_000, content: atLimit });
    expect(snapshot.plan).toEqual({ title: 'Big plan', revision: 1, size: 50_000 });

    await session.send('/tool planWrite {"content": ""}\n/tool planGet {}');
    const cleared = await arbor.waitUntilIdle(session);
    const [, , , clearedResult, readAfter] = await toolEntries(session);
    expect(clearedResult!.content).toBe('Plan cleared.');
    expect(readAfter!.content).toBe('No plan has been written yet.');
    expect(cleared.plan).toBeNull();
  });

  it('waits six days on a durable timer, showing until when while it waits', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: '/tool wait {"seconds": 518400, "reason": "weekly report"}' });
    await arbor.settle(session);
    const waiting = await arbor.snapshot(session);
    expect(waiting.status).toBe('running');
    expect(waiting.waiting?.reason).toBe('weekly report');
    expect(Date.parse(waiting.waiting!.until) - Date.parse(waiting.updated_at)).toBeGreaterThan(5 * 24 * 3600 * 1000);
    await arbor.fastForward(session, '6 days');
    const done = await arbor.waitUntilIdle(session);
    expect(done.waiting).toBeNull();
    const [result] = await toolEntries(session);
    expect(result!.content).toMatch(/^Waited 518400 s, until .* \(weekly report\)\.$/);
  });

  it('waits until a wall-clock time in a valid time zone', async () => {
    const until = new Date((await arbor.env.currentTimeMs()) + 3 * 86_400_000).toISOString().slice(0, 10) + 'T09:00:00';
    const session = await arbor.startSession({
      profile: 'all',
      instruction: `/tool wait {"until": "${until}", "timezone": "Asia/Kolkata"}`,
    });
    await arbor.settle(session);
    const waiting = await arbor.snapshot(session);
    expect(waiting.waiting?.until).toBe(new Date(`${until}+05:30`).toISOString());
  });

  it('ends a wait early when a message arrives, then answers the message', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: '/tool wait {"seconds": 86400}' });
    await arbor.settle(session);
    expect((await arbor.snapshot(session)).waiting).not.toBeNull();
    const messageId = await session.send('Wake up.');
    const snapshot = await arbor.waitUntilIdle(session);
    expect(await session.messageState(messageId)).toBe('handled');
    const [result] = await toolEntries(session);
    expect(result!.content).toMatch(/^The wait was cut short after \d+ s: a new message arrived/);
    expect(snapshot.turn).toBe(2);
    expect(snapshot.last_message?.content).toContain('Wake up.');
  });

  it.each([
    ['{"until": "2001-01-01T00:00:00Z"}', /is in the past/],
    ['{"seconds": 604801}', /at most one week/],
    ['{"seconds": 10, "until": "2030-01-01T00:00:00Z"}', /exactly one of `seconds` or `until`/],
    ['{}', /exactly one of `seconds` or `until`/],
    ['{"until": "2099-01-01T09:00:00"}', /has no UTC offset/],
    ['{"until": "next tuesday", "timezone": "Europe/Paris"}', /not an ISO 8601 date-time/],
    ['{"until": "2099-01-01T09:00:00", "timezone": "Mars/Olympus"}', /^Error: "Mars\/Olympus" is not a time zone: use an IANA name/],
    ['{"until": "2099-01-01T09:00:00", "timezone": "UTC+5"}', /^Error: "UTC\+5" is not a time zone: use an IANA name/],
    ['{"until": "2099-01-01T09:00:00", "timezone": "+05:00"}', /^Error: "\+05:00" is not a time zone: use an IANA name/],
    ['{"until": "2099-01-01T09:00:00", "timezone": "europe/paris"}', /^Error: "europe\/paris" is not a time zone: use an IANA name/],
    ['{"until": "2099-01-01T09:00:00Z", "timezone": "UTC+5"}', /^Error: "UTC\+5" is not a time zone: use an IANA name/],
  ])('refuses wait %s with a tool error', async (args, message) => {
    const session = await arbor.startSession({ profile: 'all', instruction: `/tool wait ${args}` });
    await arbor.waitUntilIdle(session);
    const [result] = await toolEntries(session);
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(message) });
  });

  it('ends the turn on stopConversation without another model call, and stays open', async () => {
    const session = await arbor.startSession({ profile: 'all', instruction: '/tool stopConversation {}' });
    const snapshot = await arbor.waitUntilIdle(session);
    expect((await arbor.transcript(session)).map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool']);
    expect(snapshot.status).toBe('idle');
    await session.send('Still there?');
    expect((await arbor.waitUntilIdle(session)).turn).toBe(2);
  });

  it('posts a notification into the transcript for the people watching, and refuses a bad type', async () => {
    const lines = [
      '/tool notifyUser {"type": "success", "title": "Build done", "message": "All green.", "source": "ci", "link": "https://example.org/ci/42"}',
      '/tool notifyUser {"type": "urgent", "title": "x", "message": "y"}',
    ];
    const session = await arbor.startSession({ profile: 'all', instruction: lines.join('\n') });
    await arbor.waitUntilIdle(session);
    const transcript = await arbor.transcript(session);
    const notices = transcript.filter((entry) => entry.role === 'notice');
    expect(notices).toEqual([
      expect.objectContaining({
        name: 'notifyUser',
        content: '[success] Build done: All green. (source: ci, https://example.org/ci/42)',
      }),
    ]);
    const [posted, refused] = transcript.filter((entry) => entry.role === 'tool');
    expect(posted!.content).toBe('Notification posted to the user.');
    expect(refused).toMatchObject({ is_error: true, content: expect.stringContaining('type') });
  });

  it('passes only http and https links into the event stream, refusing javascript:, data: and the rest as tool errors', async () => {
    const refusedLinks = [
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      '  javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'https://bank.example@evil.example/login',
      '//evil.example/x',
    ];
    const notify = (link: string) => `/tool notifyUser ${JSON.stringify({ type: 'info', title: 'Link', message: 'Open it', link })}`;
    const lines = [notify('http://example.org/a'), ...refusedLinks.map(notify), notify('https://example.org/b')];
    const session = await arbor.startSession({ profile: 'all', instruction: lines.join('\n') });
    await arbor.waitUntilIdle(session);
    const results = await toolEntries(session);
    expect(results.map((entry) => entry.is_error ?? false)).toEqual([false, ...refusedLinks.map(() => true), false]);
    expect(results[1]!.content).toContain('Only http:// and https:// links are accepted, not javascript: URLs.');
    expect(results[4]!.content).toContain('Only http:// and https:// links are accepted, not data: URLs.');
    expect(results[7]!.content).toContain('user name or password');
    expect(results[8]!.content).toContain('is not a valid URL');
    const links = (await arbor.events(session)).flatMap((event) => (event.type === 'notification' ? [event.link] : []));
    expect(links).toEqual(['http://example.org/a', 'https://example.org/b']);
  });
});
