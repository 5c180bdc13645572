/** Pages larger than this (bytes of Markdown) go to the extraction model when one is configured. */
export const DEFAULT_EXTRACTION_THRESHOLD_BYTES = 50_000;
