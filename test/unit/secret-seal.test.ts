import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../src/client/secret-seal.js';
import { openSecretsOfTurn, withheldSecret } from '../../src/activities/sealed-answers.js';
import { unsealedSecretProblem } from '../../src/shared/sealed-answers.js';
import type { TranscriptEntry } from '../../src/shared/session.js';

const entry = (role: TranscriptEntry['role'], content: string, turn: number): TranscriptEntry => ({
  id: `${role}-${turn}`,
  role,
  content,
  created_at: '2026-12-01T00:00:00.000Z',
  turn,
});

describe('sealed secret answers', () => {
  it('open with the key they were sealed with, and with no other', () => {
    const token = sealSecret('hunter2', 'key one');
    expect(token).toMatch(/^arbor-sealed:v1:[A-Za-z0-9_-]+$/);
    expect(token).not.toContain('hunter2');
    expect(openSecret(token, 'key one')).toBe('hunter2');
    expect(openSecret(token, 'key two')).toBeUndefined();
    expect(sealSecret('hunter2', 'key one')).not.toBe(token);
  });

  it('are opened for the model only in the tool results of the turn that asked', () => {
    const token = sealSecret('hunter2', 'k');
    const transcript = [entry('tool', `{"answer":"${token}"}`, 1), entry('user', 'next', 2), entry('tool', `{"answer":"${token}"}`, 2)];
    expect(openSecretsOfTurn(transcript, 2, 'k').map((e) => e.content)).toEqual([
      `{"answer":"${withheldSecret}"}`,
      'next',
      '{"answer":"hunter2"}',
    ]);
    expect(openSecretsOfTurn(transcript, 2, undefined)[2]!.content).toBe(`{"answer":"${withheldSecret}"}`);
  });

  it('must answer a secret question: a label or words in clear are refused', () => {
    const secret = ['Your key?'];
    expect(unsealedSecretProblem(secret, [{ question: 'Your key?', selected: [], other: 'clear' }])).toMatch(/is secret/);
    expect(unsealedSecretProblem(secret, [{ question: 'Your key?', selected: [], other: sealSecret('x', 'k') }])).toBeUndefined();
    expect(unsealedSecretProblem(undefined, [{ question: 'Your key?', selected: [], other: 'clear' }])).toBeUndefined();
  });
});
