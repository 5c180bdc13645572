import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestArbor, rateLimited, ScriptedModel, text, toolCall, type TestArbor } from 'arbor/testing';

// One environment serves every test of this file: each session gets its own script, chosen by its instruction.
describe('testing agents with arbor/testing', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;

  beforeAll(async () => {
    arbor = await createTestArbor({ model });
  });

  afterAll(async () => {
    await arbor?.teardown();
  });

  it('drives a goal that needs three turns to completion', async () => {
    const instruction = 'Make the three tests pass';
    model.forInstruction(
      instruction,
      toolCall('createGoal', { condition: 'All three tests pass', max_turns: 5 }),
      text('Goal set; fixing the first test.'),
      text('Fixed the second test.'),
      () => toolCall('completeGoal', { goal_id: goalIdIn(model.requestsFor(instruction)[1]!.toolResults) }),
      text('All three pass.'),
    );
    const session = await arbor.startSession({ instruction });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.goals[0]).toMatchObject({ condition: 'All three tests pass', status: 'completed' });
    expect(snapshot.turn).toBe(3);
    expect(model.requestsFor(instruction).at(-3)?.lastUserMessage).toContain('[Goal continuation]');
  });

  it('answers a question the agent asks, and gives the model the answer', async () => {
    const instruction = 'Plan my trip';
    model.forInstruction(
      instruction,
      toolCall('askUser', {
        questions: [
          {
            question: 'Which region?',
            header: 'Region',
            options: [
              { label: 'Europe', description: 'Trains and old towns' },
              { label: 'Asia', description: 'Food and mountains' },
            ],
            multiSelect: false,
          },
        ],
      }),
      (request) => text(`Planning a trip to ${JSON.stringify(request.toolResults[0])}`),
    );
    const session = await arbor.startSession({ instruction });

    const [questions] = await arbor.waitForUser(session);
    expect(questions?.questions[0]?.question).toBe('Which region?');
    await arbor.answerQuestions(session, { 'Which region?': 'Europe' });
    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.last_message?.content).toContain('Europe');
  });

  it('stops a tree of sub-agents, leaves first', async () => {
    const instruction = 'Research three topics';
    model.forInstruction(
      instruction,
      toolCall('subAgent', { title: 'Topic A', instruction: 'Research topic A and wait for more', mode: 'async' }),
      text('Started the research.'),
    );
    model.forInstruction(
      'Research topic A and wait for more',
      toolCall('wait', { seconds: 86_400, reason: 'more sources' }),
      text('Done.'),
    );
    // subAgent is an rtc tool and wait a soai one: the all profile has both.
    const session = await arbor.startSession({ instruction, profile: 'all' });
    await arbor.waitUntilIdle(session);

    const stopped = await session.stop();

    expect(stopped.total_stopped).toBe(2);
    expect(stopped.stopped_sessions.at(-1)?.sub_session_id).toBe(session.id);
    expect((await arbor.waitUntilFinished(session)).status).toBe('stopped');
  });

  it('retries a model call the endpoint refused with 429 and Retry-After', async () => {
    const instruction = 'Say hello';
    model.forInstruction(instruction, rateLimited(1), text('Hello!'));
    const session = await arbor.startSession({ instruction });

    const snapshot = await arbor.waitUntilIdle(session);

    expect(snapshot.last_message?.content).toBe('Hello!');
    expect(model.requestsFor(instruction)).toHaveLength(2);
  });
});

function goalIdIn(toolResults: unknown[]): string {
  return (toolResults[0] as { goal_id: string }).goal_id;
}
