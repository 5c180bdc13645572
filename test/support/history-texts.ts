/**
 * Every text a history fetched as JSON (`temporal workflow show --output json`) holds: each string as it is, and
 * each string that is base64 decoded, since proto3 JSON writes payload data and metadata as base64.
 */
export function historyTexts(json: string): string[] {
  const texts: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      texts.push(value);
      if (/^[A-Za-z0-9+/]+={0,2}$/.test(value) && value.length % 4 === 0) texts.push(Buffer.from(value, 'base64').toString('utf8'));
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(JSON.parse(json));
  return texts;
}

/** Which of `secrets` appear anywhere in the history. */
export function secretsIn(json: string, secrets: readonly string[]): string[] {
  const texts = historyTexts(json);
  return secrets.filter((secret) => texts.some((text) => text.includes(secret)));
}

/** The key ids named by the encrypted payloads of a history. */
export function encryptionKeyIdsIn(json: string): string[] {
  const ids = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const keyId = (value as Record<string, unknown>)['encryption-key-id'];
      if (typeof keyId === 'string') ids.add(Buffer.from(keyId, 'base64').toString('utf8'));
      Object.values(value).forEach(walk);
    }
  };
  walk(JSON.parse(json));
  return [...ids].sort();
}
