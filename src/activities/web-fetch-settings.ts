// The constant's own module: the fetch package's index loads undici and turndown, which a CLI start-up has no use for.
import { DEFAULT_EXTRACTION_THRESHOLD_BYTES } from '../web/fetch/extraction-threshold.js';

/** How a worker offers webFetch: pages over `extractionThresholdBytes` of text go to the small model with the prompt. */
export interface WebFetchSettings {
  /** Default 50,000 bytes (ARBOR_FETCH_EXTRACTION_THRESHOLD). */
  extractionThresholdBytes?: number;
  /** The whole call's time, retries and extraction included. Default 60 s, as the tool specification says. */
  timeoutMs?: number;
}

/**
 * Whether the worker offers webFetch (ARBOR_WEB_FETCH `on` or `off`; unset, `offeredByDefault` decides: the CLI's
 * workers offer it, one built with createArborWorker() does not unless asked), and its extraction threshold
 * (ARBOR_FETCH_EXTRACTION_THRESHOLD, in bytes). `false`: not offered. A value that is neither is an error naming it.
 */
export function webFetchFromEnv(env: NodeJS.ProcessEnv = process.env, offeredByDefault = false): WebFetchSettings | false {
  const switched = env.ARBOR_WEB_FETCH?.trim().toLowerCase();
  const offered = !switched ? offeredByDefault : onOff(switched);
  if (offered === undefined) throw new Error(`ARBOR_WEB_FETCH="${env.ARBOR_WEB_FETCH}" must be on or off.`);
  if (!offered) return false;
  const threshold = env.ARBOR_FETCH_EXTRACTION_THRESHOLD?.trim().replace(/_/g, '');
  if (!threshold) return {};
  const bytes = Number(threshold);
  if (!Number.isInteger(bytes) || bytes < 1) {
    throw new Error(
      `ARBOR_FETCH_EXTRACTION_THRESHOLD="${env.ARBOR_FETCH_EXTRACTION_THRESHOLD}" must be a whole number of bytes (default ${DEFAULT_EXTRACTION_THRESHOLD_BYTES}).`,
    );
  }
  return { extractionThresholdBytes: bytes };
}

function onOff(value: string): boolean | undefined {
  if (['on', 'true', '1', 'yes'].includes(value)) return true;
  if (['off', 'false', '0', 'no'].includes(value)) return false;
  return undefined;
}
