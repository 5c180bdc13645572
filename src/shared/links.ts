/** Why a URL a model supplied is refused: what a client may render as a link, and what webFetch may fetch. */
export type LinkProblem = 'INVALID_URL' | 'UNSUPPORTED_SCHEME' | 'CREDENTIALS_IN_URL';

/** The only schemes Arbor accepts in a URL from a model: `javascript:`, `data:` and the rest could run in a client. */
export const linkSchemes = ['http:', 'https:'] as const;

/**
 * Every URL a model supplies (a `notifyUser` link, a `webFetch` address) is taken by this one rule: an absolute
 * http:// or https:// URL with no user name or password in it (`https://bank.example@evil.example/` reads
 * as one host and goes to another).
 */
export function checkLink(text: string): { ok: true; url: URL } | { ok: false; problem: LinkProblem; scheme?: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: 'INVALID_URL' };
  }
  if (!(linkSchemes as readonly string[]).includes(url.protocol)) {
    return { ok: false, problem: 'UNSUPPORTED_SCHEME', scheme: url.protocol.replace(/:$/, '') };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'CREDENTIALS_IN_URL' };
  return { ok: true, url };
}

/** The refusal a model reads for a link it gave a tool. */
export function linkRefusal(text: string, problem: LinkProblem, scheme?: string): string {
  switch (problem) {
    case 'INVALID_URL':
      return `"${text}" is not a valid URL: give a fully-formed http:// or https:// URL.`;
    case 'UNSUPPORTED_SCHEME':
      return `Only http:// and https:// links are accepted, not ${scheme}: URLs.`;
    case 'CREDENTIALS_IN_URL':
      return 'Links with a user name or password in them (user:password@) are not accepted.';
  }
}
