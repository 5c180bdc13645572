import { describe, expect, it } from 'vitest';
import { webFetchFromEnv } from '../../src/activities/web-fetch-settings.js';

describe('webFetchFromEnv', () => {
  it('offers webFetch only where the worker enables it: off by default, on for the CLI, ARBOR_WEB_FETCH deciding both', () => {
    expect(webFetchFromEnv({})).toBe(false);
    expect(webFetchFromEnv({}, true)).toEqual({});
    expect(webFetchFromEnv({ ARBOR_WEB_FETCH: 'on' })).toEqual({});
    expect(webFetchFromEnv({ ARBOR_WEB_FETCH: 'OFF' }, true)).toBe(false);
  });

  it('reads the extraction threshold in bytes, and refuses a switch or a threshold it cannot read, naming the variable', () => {
    expect(webFetchFromEnv({ ARBOR_WEB_FETCH: 'on', ARBOR_FETCH_EXTRACTION_THRESHOLD: '20_000' })).toEqual({
      extractionThresholdBytes: 20_000,
    });
    expect(() => webFetchFromEnv({ ARBOR_WEB_FETCH: 'maybe' })).toThrow('ARBOR_WEB_FETCH="maybe" must be on or off.');
    expect(() => webFetchFromEnv({ ARBOR_FETCH_EXTRACTION_THRESHOLD: '50kb' }, true)).toThrow(
      /^ARBOR_FETCH_EXTRACTION_THRESHOLD="50kb" must be/,
    );
  });
});
