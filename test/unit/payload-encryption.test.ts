import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec, encryptionKeyIdKey, PayloadDecryptionError } from '../../src/codec/aes-gcm-codec.js';
import { EncryptionKeysError, parseEncryptionKeys } from '../../src/codec/encryption-keys.js';

const key = () => randomBytes(32).toString('base64');
const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());

describe('ARBOR_ENCRYPTION_KEYS', () => {
  it('reads comma-separated id:base64 keys, newest first, and nothing from a blank value', () => {
    const keys = parseEncryptionKeys(` k2:${key()} , k1:${key()}`);
    expect(keys.map((entry) => entry.id)).toEqual(['k2', 'k1']);
    expect(keys.every((entry) => entry.key.length === 32)).toBe(true);
    expect(parseEncryptionKeys('  ')).toEqual([]);
    expect(parseEncryptionKeys(undefined)).toEqual([]);
  });

  it('refuses a wrong length, bad base64, a duplicate id and an entry without an id, naming the entry', () => {
    const short = randomBytes(16).toString('base64');
    expect(() => parseEncryptionKeys(`k1:${short}`)).toThrow(/entry 1 \(key "k1"\) is 16 bytes; AES-256 needs 32 bytes/);
    expect(() => parseEncryptionKeys(`k1:${key()},k2:not*base64!`)).toThrow(/entry 2 \(key "k2"\) is not valid base64/);
    expect(() => parseEncryptionKeys(`k1:${key()},k1:${key()}`)).toThrow(/the key id "k1" is given twice/);
    expect(() => parseEncryptionKeys(key())).toThrow(EncryptionKeysError);
    expect(() => parseEncryptionKeys(`bad id:${key()}`)).toThrow(/key id "bad id"/);
  });
});

describe('the AES-256-GCM payload codec', () => {
  const [k2, k1] = parseEncryptionKeys(`k2:${key()},k1:${key()}`);
  const payload = defaultPayloadConverter.toPayload({ secret: 'The owl flies at midnight.' });

  it('encrypts with the newest key, names it in the metadata, and decrypts to the same payload', async () => {
    const codec = new AesGcmCodec([k2!, k1!]);
    const [encrypted] = await codec.encode([payload]);
    expect(text(encrypted!.metadata![encryptionKeyIdKey])).toBe('k2');
    expect(Buffer.from(encrypted!.data!).toString('latin1')).not.toContain('owl');
    const [decrypted] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decrypted!)).toEqual({ secret: 'The owl flies at midnight.' });
  });

  it('decrypts what an older key wrote once a newer key is added, and passes plain payloads through', async () => {
    const [old] = await new AesGcmCodec([k1!]).encode([payload]);
    const rotated = new AesGcmCodec([k2!, k1!]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!)).toEqual({ secret: 'The owl flies at midnight.' });
    expect(await rotated.decode([payload])).toEqual([payload]);
  });

  it('refuses a payload of a key it does not hold, and one whose ciphertext was altered', async () => {
    const [encrypted] = await new AesGcmCodec([k2!]).encode([payload]);
    await expect(new AesGcmCodec([k1!]).decode([encrypted!])).rejects.toThrow(/key "k2", which is not among this process's keys \(k1\)/);
    const altered = { ...encrypted!, data: Buffer.from(encrypted!.data!).fill(0, 20, 21) };
    await expect(new AesGcmCodec([k2!]).decode([altered])).rejects.toThrow(PayloadDecryptionError);
  });
});
