import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../src/codec/aes-gcm-codec.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';
import { isUnreadable, ListingCodec } from '../../src/codec/listing-codec.js';

const [mine, theirs] = parseEncryptionKeys(`mine:${randomBytes(32).toString('base64')},theirs:${randomBytes(32).toString('base64')}`);
const owner = defaultPayloadConverter.toPayload('ada')!;

describe("a listing's memo codec", () => {
  it('turns a payload no codec here can decrypt into the unreadable marker, and decodes the others', async () => {
    const [sealedForMe] = await new AesGcmCodec([mine!]).encode([owner]);
    const [sealedForThem] = await new AesGcmCodec([theirs!]).encode([owner]);

    const keyless = await new ListingCodec([]).decode([sealedForMe!, owner]);
    const keyed = await new ListingCodec([new AesGcmCodec([mine!])]).decode([sealedForThem!, sealedForMe!, owner]);

    const values = (payloads: typeof keyless) => payloads.map((payload) => defaultPayloadConverter.fromPayload(payload));
    expect(values(keyless).map(isUnreadable)).toEqual([true, false]);
    expect(values(keyless)[1]).toBe('ada');
    expect(values(keyed).map(isUnreadable)).toEqual([true, false, false]);
    expect(values(keyed).slice(1)).toEqual(['ada', 'ada']);
  });
});
