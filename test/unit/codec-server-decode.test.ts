import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AesGcmCodec } from '../../src/codec/aes-gcm-codec.js';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server.js';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys.js';

const [served, unknown] = parseEncryptionKeys(`served:${randomBytes(32).toString('base64')},unknown:${randomBytes(32).toString('base64')}`);
const asJson = (payload: Payload) => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value!).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

describe("the codec server's /decode", () => {
  let server: CodecServer;
  beforeAll(async () => {
    server = await startCodecServer({ codec: new AesGcmCodec([served!]), port: 0 });
  });
  afterAll(() => server.close());

  it('decodes each payload of a batch on its own, returning one under a key it lacks, or damaged, unchanged', async () => {
    const secret = defaultPayloadConverter.toPayload('the served secret')!;
    const plain = defaultPayloadConverter.toPayload('plain words')!;
    const [readable] = await new AesGcmCodec([served!]).encode([secret]);
    const [foreign] = await new AesGcmCodec([unknown!]).encode([defaultPayloadConverter.toPayload('the other secret')!]);
    const [damaged] = await new AesGcmCodec([served!]).encode([secret]);
    damaged!.data = Buffer.from(damaged!.data!).fill(0, 20, 21);
    const batch = [foreign!, readable!, damaged!, plain].map(asJson);

    const response = await fetch(`${server.url}/decode`, { method: 'POST', body: JSON.stringify({ payloads: batch }) });

    expect(response.status).toBe(200);
    const { payloads } = (await response.json()) as { payloads: unknown[] };
    expect(payloads).toEqual([batch[0], asJson(secret), batch[2], batch[3]]);
  });
});
