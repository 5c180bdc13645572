import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from 'arbor/testing';

describe('a loop over a week, fast-forwarded', () => {
  const instruction = 'Check the build every hour for a week';
  const model = new ScriptedModel((request) =>
    // The first request creates the loop; every firing after it answers with the firing's number.
    request.number === 1
      ? toolCall('createLoop', { prompt: 'Check the build', interval_seconds: 3_600, max_turns: 168 })
      : text(request.lastUserMessage.startsWith('[Loop') ? 'Build is green.' : 'Loop created.'),
  );
  let arbor: TestArbor;

  beforeAll(async () => {
    // Loops expire after 7 days by default, which would end this one at its 168th firing: allow a day more.
    arbor = await createTestArbor({ model, loopLimits: { max_age_seconds: 8 * 86_400 } });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('fires 168 times in seven days of workflow time, then is exhausted', async () => {
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    await arbor.fastForward(session, '7 days');
    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.loops[0]).toMatchObject({ firings: 168, status: 'exhausted', reason: 'max_turns reached' });
    const firings = model.requests.filter((request) => request.lastUserMessage.startsWith('[Loop'));
    expect(firings).toHaveLength(168);
    expect(firings.at(-1)?.lastUserMessage).toContain('firing 168 of at most 168] Check the build');
  });
});
