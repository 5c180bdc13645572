import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sealedPrefix } from '../shared/sealed-answers.js';

/**
 * Secret answers (soai `ask_user`'s `secret` questions) travel sealed: the answering client encrypts the text with the
 * key it shares with the workers (ARBOR_SECRET_KEY), so the update, the session's state, its events and its history
 * hold only the sealed token; the worker's model call opens it for the turn that asked.
 */
export { sealedPrefix };
const sealedToken = /arbor-sealed:v1:[A-Za-z0-9_-]+/g;

export function secretKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env.ARBOR_SECRET_KEY?.trim();
  return key ? key : undefined;
}

const keyBytes = (key: string) => createHash('sha256').update(key, 'utf8').digest();

export function sealSecret(text: string, key: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return sealedPrefix + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The text of a sealed token, or undefined when it was sealed with another key (or is not one). */
export function openSecret(token: string, key: string): string | undefined {
  if (!token.startsWith(sealedPrefix)) return undefined;
  try {
    const bytes = Buffer.from(token.slice(sealedPrefix.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Every sealed token in `text` replaced: opened (when `key` is given and opens it) or by `withheld`. */
export function replaceSealed(text: string, open: ((token: string) => string | undefined) | undefined, withheld: string): string {
  if (!text.includes(sealedPrefix)) return text;
  return text.replace(sealedToken, (token) => open?.(token) ?? withheld);
}
