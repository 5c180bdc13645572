import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestArbor, ScriptedModel, text, toolCall, type TestArbor } from '../../src/testing.js';

describe('the Skill tool over a skills folder (the testing kit on the time-skipping server, scripted model)', () => {
  const model = new ScriptedModel();
  let arbor: TestArbor;
  let skillsDir: string;

  beforeAll(async () => {
    // Written as README "Skills" describes the folder: one Markdown file a skill, optional front matter, owner subfolders.
    skillsDir = await mkdtemp(join(tmpdir(), 'arbor-skills-'));
    await writeFile(
      join(skillsDir, 'review.md'),
      '---\ndescription: Review a pull request\n---\nReview the pull request $ARGUMENTS. List bugs first, then style.\n',
    );
    await writeFile(join(skillsDir, 'standup.md'), 'Write a standup note for $ARGUMENTS.');
    await mkdir(join(skillsDir, 'ada'));
    await writeFile(join(skillsDir, 'ada', 'review.md'), "---\ndescription: Ada's review\n---\nReview $ARGUMENTS as Ada does.\n");
    arbor = await createTestArbor({ model, skillsDir, workflowBundlePath: inject('workflowBundlePath') });
  });

  afterAll(async () => {
    await arbor?.teardown();
    await rm(skillsDir, { recursive: true, force: true });
  });

  it('returns the skill text with its front matter stripped and $ARGUMENTS replaced, as the tool result', async () => {
    const instruction = 'review pull request 12';
    model.forInstruction(instruction, toolCall('Skill', { skill: 'review', args: '#12' }), text('Reviewed.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const [first, second] = model.requestsFor(instruction);
    expect(first!.tools).toContain('Skill');
    expect(second!.toolResults).toEqual(['Review the pull request #12. List bugs first, then style.\n']);
  });

  it('lists the skills with the descriptions of their front matter', async () => {
    const instruction = 'which skills are there';
    model.forInstruction(instruction, toolCall('Skill', { skill: 'list' }), text('Two skills.'));
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    expect(model.requestsFor(instruction)[1]!.toolResults).toEqual(['Skills:\n- review: Review a pull request\n- standup']);
  });

  it("prefers the owner's own skill of a name to the shared one, and replaces a missing $ARGUMENTS with nothing", async () => {
    const instruction = 'ada reviews';
    model.forInstruction(instruction, toolCall('Skill', { skill: 'review' }), toolCall('Skill', { skill: 'standup' }), text('Done.'));
    const session = await arbor.startSession({ instruction, owner: 'ada' });
    await arbor.waitUntilIdle(session);

    const [, second, third] = model.requestsFor(instruction);
    expect(second!.toolResults).toEqual(['Review  as Ada does.\n']);
    expect(third!.toolResults).toEqual(['Write a standup note for .']);
  });

  it('refuses a skill longer than a tool result may be, whole, rather than cut', async () => {
    await mkdir(join(skillsDir, 'big'));
    await writeFile(join(skillsDir, 'big', 'huge.md'), 'x'.repeat(100_001));
    const instruction = 'run the huge skill';
    model.forInstruction(instruction, toolCall('Skill', { skill: 'huge' }), text('Too long.'));
    const session = await arbor.startSession({ instruction, owner: 'big' });
    await arbor.waitUntilIdle(session);

    expect(model.requestsFor(instruction)[1]!.toolResults).toEqual([
      'Error: The skill "huge" is 100001 characters long, more than the 100000 a tool result may have.',
    ]);
  });

  it('answers an unknown skill, or a name that is a path, with a tool error listing the skills', async () => {
    const instruction = 'unknown skill';
    model.forInstruction(
      instruction,
      toolCall('Skill', { skill: 'deploy' }),
      toolCall('Skill', { skill: '../secrets' }),
      text('No such skill.'),
    );
    const session = await arbor.startSession({ instruction });
    await arbor.waitUntilIdle(session);

    const [, second, third] = model.requestsFor(instruction);
    expect(second!.toolResults).toEqual(['Error: Unknown skill "deploy". Skills: review, standup.']);
    expect(third!.toolResults).toEqual(['Error: Unknown skill "../secrets". Skills: review, standup.']);
    const transcript = await arbor.transcript(session);
    expect(transcript.filter((entry) => entry.role === 'tool').every((entry) => entry.is_error === true)).toBe(true);
  });
});
