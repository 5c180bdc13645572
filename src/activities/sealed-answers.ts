import type { TranscriptEntry } from '../shared/session.js';
import { openSecret, replaceSealed, sealedPrefix } from '../client/secret-seal.js';

/** What the model reads in place of a secret answer after the turn that asked for it. */
export const withheldSecret = '[secret answer: shown to the model only in the turn that asked]';

/**
 * The transcript as the model may read it: sealed secret answers opened in the tool results of the running turn (with
 * the worker's key), withheld everywhere else. The workflow, its history and its events only ever hold the sealed form.
 */
export function openSecretsOfTurn(transcript: TranscriptEntry[], turn: number, key: string | undefined): TranscriptEntry[] {
  if (!transcript.some((entry) => entry.content.includes(sealedPrefix))) return transcript;
  const open = key === undefined ? undefined : (token: string) => openSecret(token, key);
  return transcript.map((entry) => {
    if (!entry.content.includes(sealedPrefix)) return entry;
    const thisTurn = entry.role === 'tool' && entry.turn === turn;
    return { ...entry, content: replaceSealed(entry.content, thisTurn ? open : undefined, withheldSecret) };
  });
}
