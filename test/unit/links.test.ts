import { describe, expect, it } from 'vitest';
import { checkLink } from '../../src/shared/links.js';
import { notifyUser } from '../../src/shared/tools/notify.js';
import { parseFetchUrl } from '../../src/web/fetch/fetch-page.js';

const urls = [
  ['http://example.org/a', true],
  ['https://example.org/b?q=1#top', true],
  ['HTTPS://EXAMPLE.ORG/', true],
  ['javascript:alert(1)', false],
  ['JavaScript:alert(1)', false],
  ['java\tscript:alert(1)', false],
  ['data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==', false],
  ['vbscript:msgbox(1)', false],
  ['blob:https://example.org/1b4e28ba', false],
  ['file:///etc/passwd', false],
  ['ftp://example.org/file', false],
  ['https://bank.example@evil.example/', false],
  ['https://user:secret@example.org/', false],
  ['//example.org/x', false],
  ['example.org', false],
] as const;

const notifyAccepts = (link: string) => notifyUser.input.safeParse({ type: 'info', title: 'Link', message: 'Open it', link }).success;
const webFetchAccepts = (url: string) => {
  try {
    parseFetchUrl(url);
    return true;
  } catch {
    return false;
  }
};

describe('URLs a model supplies, one rule for every tool', () => {
  it.each(urls)('takes %j only if it is an http or https URL without credentials (%s)', (url, accepted) => {
    expect(checkLink(url).ok).toBe(accepted);
    expect(notifyAccepts(url)).toBe(accepted);
    expect(webFetchAccepts(url)).toBe(accepted);
  });

  it('tells the model which scheme it used and which ones it may', () => {
    const refused = notifyUser.input.safeParse({ type: 'info', title: 'x', message: 'y', link: 'data:text/html,<b>hi</b>' });
    expect(refused.error?.issues[0]?.message).toBe('Only http:// and https:// links are accepted, not data: URLs.');
  });
});
