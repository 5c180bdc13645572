import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { EncryptionKey } from './encryption-keys.js';

/** The `encoding` of a payload this codec encrypted; its original payload, serialised, is the ciphertext. */
export const encryptedEncoding = 'binary/encrypted';
/** Metadata naming the key that encrypted a payload, so a worker holding several keys picks the right one. */
export const encryptionKeyIdKey = 'encryption-key-id';
/** Metadata naming the cipher, for other-language codecs. */
export const encryptionCipherKey = 'encryption-cipher';
export const encryptionCipher = 'AES-256-GCM';

const PayloadMessage = proto.temporal.api.common.v1.Payload;
const ivLength = 12;
const tagLength = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A payload that names a key this codec does not hold, or whose ciphertext does not authenticate. */
export class PayloadDecryptionError extends Error {
  override name = 'PayloadDecryptionError';
}

/**
 * AES-256-GCM over whole payloads: the first key encrypts, every key decrypts (by the key id in the metadata), and a
 * payload that is not encrypted passes through, so histories written before encryption was configured still read.
 * The ciphertext is IV (12 bytes), then the encrypted serialised Payload, then the GCM tag (16 bytes).
 */
export class AesGcmCodec implements PayloadCodec {
  private readonly keys: Map<string, Buffer>;
  private readonly current: EncryptionKey;

  constructor(keys: readonly EncryptionKey[]) {
    const [current] = keys;
    if (!current) throw new Error('AesGcmCodec needs at least one key');
    this.current = current;
    this.keys = new Map(keys.map((key) => [key.id, key.key]));
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  private encrypt(payload: Payload): Payload {
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const plain = PayloadMessage.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        [METADATA_ENCODING_KEY]: encoder.encode(encryptedEncoding),
        [encryptionKeyIdKey]: encoder.encode(this.current.id),
        [encryptionCipherKey]: encoder.encode(encryptionCipher),
      },
      data,
    };
  }

  private decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
    if (!encoding || decoder.decode(encoding) !== encryptedEncoding) return payload;
    const idBytes = payload.metadata?.[encryptionKeyIdKey];
    const id = idBytes ? decoder.decode(idBytes) : '';
    const key = this.keys.get(id);
    if (!key) {
      throw new PayloadDecryptionError(
        `A payload is encrypted with the key "${id}", which is not among this process's keys (${this.keyIds.join(', ')}): add it to ARBOR_ENCRYPTION_KEYS.`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < ivLength + tagLength) throw new PayloadDecryptionError(`A payload encrypted with the key "${id}" is too short.`);
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, ivLength));
    decipher.setAuthTag(data.subarray(data.length - tagLength));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(ivLength, data.length - tagLength)), decipher.final()]);
    } catch {
      throw new PayloadDecryptionError(`A payload encrypted with the key "${id}" does not authenticate: the key or the data is wrong.`);
    }
    return PayloadMessage.decode(plain);
  }
}
