/** Why a webFetch call failed; the message is written for the model that called the tool. */
export type WebFetchErrorCode =
  | 'INVALID_INPUT'
  | 'INVALID_URL'
  | 'URL_TOO_LONG'
  | 'UNSUPPORTED_SCHEME'
  | 'CREDENTIALS_IN_URL'
  | 'FORBIDDEN_ADDRESS'
  | 'TOO_MANY_REDIRECTS'
  | 'BAD_REDIRECT'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'TOO_LARGE'
  | 'UNSUPPORTED_CONTENT_TYPE'
  | 'UNSUPPORTED_CONTENT_ENCODING'
  | 'HTTP_STATUS'
  | 'NETWORK'
  | 'CONVERSION';

/** Failures that the same call may get past when tried again later (for the activity's retry policy). */
const RETRYABLE: ReadonlySet<WebFetchErrorCode> = new Set(['TIMEOUT', 'NETWORK']);

export class WebFetchError extends Error {
  /** Whether trying the same URL again later may succeed (timeouts, network errors, HTTP 408/429/5xx). */
  readonly retryable: boolean;
  /** The HTTP status, for HTTP_STATUS errors. */
  readonly status: number | undefined;
  constructor(
    readonly code: WebFetchErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean; status?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebFetchError';
    this.retryable = options.retryable ?? RETRYABLE.has(code);
    this.status = options.status;
  }
}
