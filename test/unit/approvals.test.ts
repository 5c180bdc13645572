import { describe, expect, it } from 'vitest';
import { checkAnswers } from '../../src/shared/answers.js';
import { answerRulesOf, approvalDecision, approvalQuestion } from '../../src/shared/approvals.js';

const question = approvalQuestion('refund', '{"order_id": "A1",\n "eur": 250}');
const approvalSet = { approval: { tool_name: 'refund', tool_call_id: 'call-1', arguments: '{}' } };

describe('approval questions and answers', () => {
  it('asks whether the tool may run with its arguments, offering Approve and Deny under the header Approval', () => {
    expect(question).toMatchObject({
      question: 'May refund run with {"order_id": "A1", "eur": 250}?',
      header: 'Approval',
      multiSelect: false,
    });
    expect(question.options.map((option) => option.label)).toEqual(['Approve', 'Deny']);
  });

  it('accepts Deny with a reason on an approval, and refuses Approve with words or both labels', () => {
    const rules = answerRulesOf(approvalSet);
    expect(checkAnswers([question], { Approval: ['Deny', { other: 'too much' }] }, rules)).toEqual({
      ok: true,
      answers: [{ question: question.question, selected: ['Deny'], other: 'too much' }],
    });
    const refused = 'takes a single answer, got 2 (only "Deny" may come with your own words).';
    expect(checkAnswers([question], { Approval: ['Approve', { other: 'sure' }] }, rules)).toEqual({
      ok: false,
      error: `"${question.question}" ${refused}`,
    });
    expect(checkAnswers([question], { Approval: ['Approve', 'Deny'] }, rules)).toMatchObject({ ok: false });
  });

  it('keeps askUser rules for other question sets: a label with words is two answers to a single-select question', () => {
    expect(answerRulesOf({})).toEqual({});
    expect(checkAnswers([question], { Approval: ['Deny', { other: 'too much' }] })).toEqual({
      ok: false,
      error: `"${question.question}" takes a single answer, got 2.`,
    });
  });

  it('approves only on Approve, and tells the model what the user said otherwise', () => {
    expect(approvalDecision('refund', { question: question.question, selected: ['Approve'] })).toEqual({ approved: true });
    expect(approvalDecision('refund', { question: question.question, selected: ['Deny'] })).toEqual({
      approved: false,
      reason: 'The user denied the call to refund, so it did not run.',
    });
    expect(approvalDecision('refund', { question: question.question, selected: [], other: 'ask finance' })).toEqual({
      approved: false,
      reason: 'The user did not approve the call to refund, so it did not run. They said: "ask finance"',
    });
  });
});
