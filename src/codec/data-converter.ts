import type { DataConverter } from '@temporalio/common';
import { AesGcmCodec } from './aes-gcm-codec.js';
import type { EncryptionKey } from './encryption-keys.js';

/**
 * The `dataConverter` option of a Temporal Client, Worker or test environment for these keys: `{}` when there are
 * none (payloads stay as today), else Temporal's default converter with the AES-256-GCM codec.
 */
export function dataConverterOption(keys: readonly EncryptionKey[] | undefined): { dataConverter?: DataConverter } {
  if (!keys || keys.length === 0) return {};
  return { dataConverter: { payloadCodecs: [new AesGcmCodec(keys)] } };
}
