import { METADATA_ENCODING_KEY, type Payload, type PayloadCodec } from '@temporalio/common';
import { encryptedEncoding } from './aes-gcm-codec.js';

/** What a listing shows for a memo value it cannot decrypt: a client without the key, or with other keys. */
export interface UnreadablePayload {
  arbor_unreadable: 'encrypted';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const unreadablePayload: Payload = {
  metadata: { [METADATA_ENCODING_KEY]: encoder.encode('json/plain') },
  data: encoder.encode(JSON.stringify({ arbor_unreadable: 'encrypted' } satisfies UnreadablePayload)),
};

export function isUnreadable(value: unknown): value is UnreadablePayload {
  return typeof value === 'object' && value !== null && (value as Partial<UnreadablePayload>).arbor_unreadable === 'encrypted';
}

/**
 * For listings only: decodes each payload on its own through `codecs` (a client's, last first, as Temporal does), and
 * turns one that stays encrypted, or that a codec refuses, into an `UnreadablePayload` value instead of failing the
 * whole page. Temporal's client decodes every listed workflow's memo, so without this one encrypted session would
 * hide every other session from a client that lacks its key.
 */
export class ListingCodec implements PayloadCodec {
  constructor(private readonly codecs: readonly PayloadCodec[]) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    let encoded = payloads;
    for (const codec of this.codecs) encoded = await codec.encode(encoded);
    return encoded;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.decodeOne(payload)));
  }

  private async decodeOne(payload: Payload): Promise<Payload> {
    let decoded = [payload];
    try {
      for (let index = this.codecs.length - 1; index >= 0; index--) decoded = await this.codecs[index]!.decode(decoded);
    } catch {
      return unreadablePayload;
    }
    const [result] = decoded;
    return !result || isEncrypted(result) ? unreadablePayload : result;
  }
}

function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
  return encoding !== undefined && encoding !== null && decoder.decode(encoding) === encryptedEncoding;
}
