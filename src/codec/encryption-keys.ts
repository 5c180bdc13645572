/** The variable that holds the payload encryption keys of a worker, client or codec server. */
export const encryptionKeysVariable = 'ARBOR_ENCRYPTION_KEYS';

export interface EncryptionKey {
  id: string;
  /** 32 bytes: an AES-256 key. */
  key: Buffer;
}

/** A key list that cannot be used; the message names the variable and says what to fix. */
export class EncryptionKeysError extends Error {
  override name = 'EncryptionKeysError';
}

const keyIdPattern = /^[A-Za-z0-9._-]{1,64}$/;
const base64Pattern = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses `id:<base64 of 32 bytes>` entries separated by commas, newest first: the first key encrypts, every key
 * decrypts. An empty or blank value means no encryption (an empty list).
 */
export function parseEncryptionKeys(value: string | undefined, source = encryptionKeysVariable): EncryptionKey[] {
  if (value === undefined || value.trim() === '') return [];
  const keys: EncryptionKey[] = [];
  for (const [index, entry] of value.split(',').entries()) {
    const where = `${source}: entry ${index + 1}`;
    const trimmed = entry.trim();
    const colon = trimmed.indexOf(':');
    if (colon < 0) throw new EncryptionKeysError(`${where} is not "<key id>:<base64 key>" (comma-separated, newest first).`);
    const id = trimmed.slice(0, colon).trim();
    const encoded = trimmed.slice(colon + 1).trim();
    if (!keyIdPattern.test(id)) {
      throw new EncryptionKeysError(`${where} has the key id "${id}": use 1-64 letters, digits, dots, underscores or hyphens.`);
    }
    if (keys.some((key) => key.id === id))
      throw new EncryptionKeysError(`${where}: the key id "${id}" is given twice; each key needs its own id.`);
    if (!base64Pattern.test(encoded) || encoded.length % 4 !== 0) {
      throw new EncryptionKeysError(`${where} (key "${id}") is not valid base64 (make one with: openssl rand -base64 32).`);
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32) {
      throw new EncryptionKeysError(
        `${where} (key "${id}") is ${key.length} bytes; AES-256 needs 32 bytes (make one with: openssl rand -base64 32).`,
      );
    }
    keys.push({ id, key });
  }
  return keys;
}

/** The keys named by the environment (ARBOR_ENCRYPTION_KEYS); none when it is unset. */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKey[] {
  return parseEncryptionKeys(env[encryptionKeysVariable]);
}
