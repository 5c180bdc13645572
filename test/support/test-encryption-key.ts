/**
 * The fixed key of the committed encrypted histories (test/histories/arborSessionV3/encrypted-*.json): a test key,
 * public on purpose, in the format of ARBOR_ENCRYPTION_KEYS. Never use it for anything else.
 */
export const testEncryptionKeys = 'test-2026:QXJib3IgdGVzdCBrZXksIHB1YmxpYywgMzIgYnl0ZXM=';
