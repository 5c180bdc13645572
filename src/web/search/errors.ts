import type { SearchEngineName } from './types.js';

/** Why one engine did not give an answer; every kind makes webSearch fail over to the next engine. */
export type EngineFailureKind =
  'timeout' | 'network' | 'rate_limited' | 'auth' | 'http_status' | 'unparseable' | 'too_large' | 'unavailable';

/** One engine failed. `message` is the reason alone (no engine name), e.g. "rate limited (HTTP 429)". */
export class SearchEngineError extends Error {
  override readonly name = 'SearchEngineError';
  readonly engine: SearchEngineName;
  readonly kind: EngineFailureKind;
  readonly status: number | undefined;

  constructor(engine: SearchEngineName, kind: EngineFailureKind, reason: string, options: { status?: number; cause?: unknown } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.engine = engine;
    this.kind = kind;
    this.status = options.status;
  }
}

export interface EngineAttempt {
  engine: string;
  reason: string;
}

/** Every configured engine failed (or none is configured). The message names each engine and why it failed. */
export class WebSearchError extends Error {
  override readonly name = 'WebSearchError';
  readonly attempts: EngineAttempt[];

  constructor(attempts: EngineAttempt[]) {
    super(
      attempts.length === 0
        ? 'Web search failed: no search engine is configured.'
        : `Web search failed: every search engine failed (${attempts.map((attempt) => `${attempt.engine}: ${attempt.reason}`).join('; ')}).`,
    );
    this.attempts = attempts;
  }
}

/** The search environment variables are inconsistent (an unknown engine name, a URL that is not http(s)). */
export class SearchConfigError extends Error {
  override readonly name = 'SearchConfigError';
}

/** The webSearch arguments are unusable (empty query, unknown time range). */
export class WebSearchInputError extends Error {
  override readonly name = 'WebSearchInputError';
}
