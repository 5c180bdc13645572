import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestArbor, ReplayFailedError, replayHistories, ScriptedModel, text, toolCall, type TestArbor } from 'arbor/testing';

// The habit: record the histories of sessions your tests run, commit them, and replay them in CI before a deploy, so
// a change to the workflow code (Arbor's, after an upgrade) that would break running sessions fails a test first.
const committed = fileURLToPath(new URL('./histories/', import.meta.url));

describe('replaying recorded histories', () => {
  const instruction = 'Plan a garden';
  const model = new ScriptedModel().forInstruction(
    instruction,
    toolCall('todoWrite', { todos: [{ content: 'Choose plants', status: 'in_progress', activeForm: 'Choosing plants' }] }),
    text('Planned.'),
  );
  let arbor: TestArbor;
  let folder: string;

  beforeAll(async () => {
    arbor = await createTestArbor({ model });
    folder = await mkdtemp(join(tmpdir(), 'histories-'));
  });

  afterAll(async () => {
    await arbor?.teardown();
    await rm(folder, { recursive: true, force: true });
  });

  it('replays a history recorded by a test against today’s workflow code', async () => {
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);
    const [file] = await arbor.recordHistory(session, join(folder, 'plan-a-garden.json'));

    const replayed = await replayHistories(folder);

    expect(replayed).toEqual([{ file: 'plan-a-garden.json' }]);
    expect(JSON.parse(await readFile(file!, 'utf8')).events.length).toBeGreaterThan(5);
  });

  it('replays the histories committed beside this file', async () => {
    const replayed = await replayHistories(committed);

    expect(replayed.map((history) => history.file)).toContain('plan-a-garden.json');
  });

  it('names the history that no longer replays, and why', async () => {
    // A history whose commands differ from what the code does now: here its model call became another activity.
    const history = JSON.parse(await readFile(join(committed, 'plan-a-garden.json'), 'utf8'));
    const scheduled = history.events.find(
      (event: { activityTaskScheduledEventAttributes?: unknown }) => event.activityTaskScheduledEventAttributes,
    );
    scheduled.activityTaskScheduledEventAttributes.activityType.name = 'somethingElse';
    const changed = await mkdtemp(join(tmpdir(), 'changed-'));
    await writeFile(join(changed, 'changed.json'), JSON.stringify(history));

    const failure = await replayHistories(changed).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ReplayFailedError);
    expect((failure as ReplayFailedError).failures.map((entry) => entry.file)).toEqual(['changed.json']);
    expect((failure as Error).message).toMatch(/changed\.json: .*nondetermin/i);
    await rm(changed, { recursive: true, force: true });
  });
});
