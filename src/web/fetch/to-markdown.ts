/**
 * HTML to Markdown for the model: turndown, with
 *  - main-content extraction: when the page marks its main content (<main>, role="main", or <article>), only that is
 *    kept; page chrome (navigation, banners, footers, sidebars, cookie notices, hidden elements) is always dropped;
 *  - scripts, styles, forms controls, embedded media and the <title> kept out of the text (the title is returned);
 *  - links and images resolved against the page URL, so the model can fetch them;
 *  - GitHub-flavoured tables, and fenced code blocks with the language when the page names it.
 */
import TurndownService from 'turndown';

/** The little of the DOM (turndown's parser, domino) that the rules use. */
interface DomNode {
  nodeName: string;
  nodeType: number;
  parentNode: DomNode | null;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?: (name: string) => string | null;
  hasAttribute?: (name: string) => boolean;
}

export interface MarkdownPage {
  markdown: string;
  /** The page's <title>, if any. */
  title: string | undefined;
  /** Whether only the page's marked main content was kept. */
  mainContentOnly: boolean;
  /** Whether the HTML was cut at `maxHtmlChars` (after removing scripts and styles) before conversion. */
  truncated: boolean;
  /** Whether the HTML could not be converted structurally and was reduced to plain text instead. */
  plainTextFallback: boolean;
}

export interface HtmlToMarkdownOptions {
  /** Keep only <main>/<article> content when the page has it, and drop page chrome. Default true. */
  mainContent?: boolean;
  /**
   * The most HTML converted, after scripts, styles, SVG and comments are removed. Conversion is synchronous and
   * costs a few seconds per megabyte, so very large pages are cut. Default 1,000,000 characters.
   */
  maxHtmlChars?: number;
}

export const DEFAULT_MAX_HTML_CHARS = 1_000_000;
/** Deeper element nesting than this is reduced to plain text: the DOM conversion recurses and slows down quadratically. */
export const MAX_NESTING_DEPTH = 1_000;

const VOID_OR_SELF_CLOSING = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  // Elements whose end tag is routinely left out: the parser closes them, so they do not deepen the tree.
  'p',
  'li',
  'dt',
  'dd',
  'tr',
  'td',
  'th',
  'option',
  'optgroup',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'rb',
  'rt',
  'rp',
]);

/** A linear estimate of the deepest element nesting, from start and end tags. */
export function estimateNestingDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  const tags = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)[^>]*?(\/?)>/g;
  for (let match = tags.exec(html); match !== null; match = tags.exec(html)) {
    const name = (match[2] ?? '').toLowerCase();
    if (VOID_OR_SELF_CLOSING.has(name) || match[3] === '/') continue;
    if (match[1] === '/') depth = Math.max(0, depth - 1);
    else {
      depth += 1;
      if (depth > deepest) deepest = depth;
    }
  }
  return deepest;
}

const STRIPPED_ELEMENTS = ['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object'];

/**
 * Removes comments and whole elements whose content is never text for the reader (scripts, styles, SVG, ...),
 * in linear time, before the (much slower) DOM conversion. An element left unclosed is cut to the end.
 */
export function stripNonContent(html: string): string {
  // ASCII-only lower-casing keeps every index aligned with the original string.
  const lower = html.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  const openers = ['<!--', ...STRIPPED_ELEMENTS.map((tag) => `<${tag}`)];
  const closers = ['-->', ...STRIPPED_ELEMENTS.map((tag) => `</${tag}`)];
  // Next occurrence of each opener at or after the current position; each is searched for again only once passed,
  // so the whole scan stays linear.
  const nextAt = openers.map(() => -2);
  const find = (i: number, from: number): number => {
    const opener = openers[i]!;
    let index = lower.indexOf(opener, from);
    // Skip longer names that merely start with this one (<style vs <styles-x>), except for comments.
    while (i > 0 && index !== -1 && /[a-z0-9:-]/.test(lower[index + opener.length] ?? '')) index = lower.indexOf(opener, index + 1);
    return index;
  };
  const parts: string[] = [];
  let position = 0;
  for (;;) {
    let best = -1;
    let which = -1;
    for (let i = 0; i < openers.length; i += 1) {
      if (nextAt[i] !== -1 && nextAt[i]! < position) nextAt[i] = find(i, position);
      const index = nextAt[i]!;
      if (index !== -1 && (best === -1 || index < best)) {
        best = index;
        which = i;
      }
    }
    if (which === -1) break;
    parts.push(html.slice(position, best));
    const closer = closers[which]!;
    const close = lower.indexOf(closer, best + openers[which]!.length);
    if (close === -1) {
      position = html.length;
      break;
    }
    const after = which === 0 ? close + closer.length : lower.indexOf('>', close);
    position = after === -1 ? html.length : which === 0 ? after : after + 1;
  }
  parts.push(html.slice(position));
  return parts.join(' ');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Last resort when the DOM conversion fails (e.g. absurdly deep nesting): tags out, text kept. */
function htmlToPlainText(html: string): string {
  return html
    .replace(/<\/?(?:p|div|br|h[1-6]|li|tr|section|article|main|table|ul|ol|pre|blockquote)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
      if (entity.startsWith('#')) {
        const code = entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[entity.toLowerCase()] ?? match;
    })
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ *\n[ \n]*/g, '\n\n')
    .trim();
}

const CELL = '\uE000';
const ROW = '\uE001';
const PRIVATE_MARKERS = /[\uE000\uE001]/g;

const DROPPED_TAGS = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'svg',
  'canvas',
  'video',
  'audio',
  'map',
  'button',
  'input',
  'select',
  'option',
  'textarea',
  'dialog',
  'link',
  'meta',
  'head',
] as const;

const CHROME_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menu',
  'menubar',
  'dialog',
  'alertdialog',
]);
const CHROME_TOKENS =
  /(?:^|[\s_-])(?:cookie|cookies|consent|gdpr|skip-link|skiplink|breadcrumb|breadcrumbs|share|sharing|social|newsletter|advert|advertisement|ads|sponsored|popup|modal)(?:$|[\s_-])/i;

function attr(node: DomNode, name: string): string {
  return node.getAttribute?.(name) ?? '';
}

function isElement(node: DomNode | null): node is DomNode {
  return node !== null && node.nodeType === 1;
}

function hasAncestor(node: DomNode, test: (ancestor: DomNode) => boolean): boolean {
  for (let current = node.parentNode; isElement(current); current = current.parentNode) {
    if (test(current)) return true;
  }
  return false;
}

function isMain(node: DomNode): boolean {
  return node.nodeName === 'MAIN' || attr(node, 'role').toLowerCase() === 'main';
}

function isArticle(node: DomNode): boolean {
  return node.nodeName === 'ARTICLE' || attr(node, 'role').toLowerCase() === 'article';
}

function isHidden(node: DomNode): boolean {
  if (node.hasAttribute?.('hidden')) return true;
  if (attr(node, 'aria-hidden').toLowerCase() === 'true') return true;
  return /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(attr(node, 'style'));
}

/** Page chrome: navigation, sidebars, page header and footer, notices. Never the main content itself. */
function isChrome(node: DomNode): boolean {
  const name = node.nodeName;
  if (name === 'BODY' || name === 'HTML' || isMain(node) || isArticle(node)) return false;
  if (isHidden(node)) return true;
  if (name === 'NAV' || name === 'ASIDE') return true;
  if (name === 'HEADER' || name === 'FOOTER') return !hasAncestor(node, (a) => isMain(a) || isArticle(a));
  const role = attr(node, 'role').toLowerCase();
  if (CHROME_ROLES.has(role)) return true;
  const tokens = `${attr(node, 'id')} ${attr(node, 'class')}`;
  // Notices and share bars are small; a large element whose class merely mentions one (has-cookie-banner) is content.
  return tokens.trim() !== '' && CHROME_TOKENS.test(tokens) && (node.textContent ?? '').length < 2_000;
}

function resolveUrl(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (trimmed === '') return undefined;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol === 'javascript:' || url.protocol === 'data:' || url.protocol === 'vbscript:') return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

function codeLanguage(node: DomNode): string {
  const candidates: DomNode[] = [node];
  const first = Array.from(node.childNodes).find((child) => isElement(child));
  if (first && first.nodeName === 'CODE') candidates.push(first);
  if (isElement(node.parentNode)) {
    candidates.push(node.parentNode);
    if (isElement(node.parentNode.parentNode)) candidates.push(node.parentNode.parentNode);
  }
  for (const candidate of candidates) {
    const explicit = attr(candidate, 'data-lang') || attr(candidate, 'data-language');
    if (/^[\w+#.-]{1,30}$/.test(explicit)) return explicit.toLowerCase();
    const match = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]{1,30})(?:\s|$)/i.exec(attr(candidate, 'class'));
    if (match?.[1]) return match[1].toLowerCase();
  }
  return '';
}

function fenceFor(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function escapeCell(text: string): string {
  return text
    .trim()
    .replace(/\s*\n+\s*/g, ' ')
    .replace(/\|/g, '\\|');
}

function renderTable(content: string, caption: string): string {
  const rows = content
    .split(ROW)
    .slice(1)
    .map((row) => row.split(CELL).slice(1));
  const nonEmpty = rows.filter((cells) => cells.some((cell) => cell.trim() !== ''));
  if (nonEmpty.length === 0) return '';
  const columns = nonEmpty.reduce((most, cells) => Math.max(most, cells.length), 0);
  // A one-column table, or one holding another table, is there for layout, not data.
  const layout = columns <= 1 || nonEmpty.some((cells) => cells.some((cell) => /\n\|[ -|]*---/.test(cell)));
  if (layout) {
    // A table used for layout: keep its cells as blocks.
    return `\n\n${nonEmpty
      .map((cells) =>
        cells
          .map((cell) => cell.trim())
          .filter(Boolean)
          .join('\n\n'),
      )
      .join('\n\n')}\n\n`;
  }
  const line = (cells: string[]) => {
    const padded = [...cells.map(escapeCell)];
    while (padded.length < columns) padded.push('');
    return `| ${padded.join(' | ')} |`;
  };
  const [head = [], ...body] = nonEmpty;
  const lines = [line(head), `| ${Array.from({ length: columns }, () => '---').join(' | ')} |`, ...body.map(line)];
  const title = caption.trim() === '' ? '' : `${caption.trim().replace(/\s+/g, ' ')}\n\n`;
  return `\n\n${title}${lines.join('\n')}\n\n`;
}

function tidy(markdown: string): string {
  return markdown
    .replace(PRIVATE_MARKERS, '')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Converts an HTML document (or fragment) to Markdown, resolving relative links against `baseUrl`. */
export function htmlToMarkdown(html: string, baseUrl: string, options: HtmlToMarkdownOptions = {}): MarkdownPage {
  const mainContent = options.mainContent ?? true;
  let title: string | undefined;
  const mains: string[] = [];
  const articles: string[] = [];

  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
    hr: '---',
  });
  const rule = (filter: (node: DomNode) => boolean, replacement: (content: string, node: DomNode) => string) => ({
    filter: (node: unknown) => filter(node as DomNode),
    replacement: (content: string, node: unknown) => replacement(content, node as DomNode),
  });

  service.addRule(
    'link',
    rule(
      (node) => node.nodeName === 'A',
      (content, node) => {
        const text = content.trim();
        const href = attr(node, 'href');
        if (href.trim().startsWith('#')) return /^[#¶§🔗]?$/u.test(text) ? '' : content;
        const url = resolveUrl(href, baseUrl);
        if (text === '' || /^[#¶§🔗]$/u.test(text)) return '';
        if (url === undefined) return content;
        const titleText = attr(node, 'title').replace(/"/g, '\\"').replace(/\s+/g, ' ').trim();
        const destination = url.replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29')).replace(/ /g, '%20');
        return `[${text.replace(/\n+/g, ' ')}](${destination}${titleText ? ` "${titleText}"` : ''})`;
      },
    ),
  );
  service.addRule(
    'image',
    rule(
      (node) => node.nodeName === 'IMG',
      (_content, node) => {
        const alt = attr(node, 'alt').replace(/\s+/g, ' ').replace(/[[\]]/g, '').trim();
        if (alt === '') return '';
        const src = resolveUrl(attr(node, 'src'), baseUrl);
        return src === undefined ? alt : `![${alt}](${src.replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'))})`;
      },
    ),
  );
  service.addRule(
    'listItem',
    rule(
      (node) => node.nodeName === 'LI',
      (content, node) => {
        const parent = node.parentNode;
        let prefix = '- ';
        if (parent?.nodeName === 'OL') {
          const siblings = Array.from(parent.childNodes).filter((child) => child.nodeName === 'LI');
          const start = Number.parseInt(attr(parent, 'start'), 10);
          prefix = `${(Number.isFinite(start) ? start : 1) + siblings.indexOf(node)}. `;
        }
        const body = content
          .replace(/^\n+/, '')
          .replace(/\n+$/, '\n')
          .replace(/\n(?!$)/g, `\n${' '.repeat(prefix.length)}`);
        const next = (node as DomNode & { nextSibling?: DomNode | null }).nextSibling;
        return prefix + body + (next && !body.endsWith('\n') ? '\n' : '');
      },
    ),
  );
  service.addRule(
    'preformatted',
    rule(
      (node) => node.nodeName === 'PRE',
      (_content, node) => {
        const code = (node.textContent ?? '').replace(/^\n/, '').replace(/\s+$/, '');
        if (code === '') return '';
        const fence = fenceFor(code);
        return `\n\n${fence}${codeLanguage(node)}\n${code}\n${fence}\n\n`;
      },
    ),
  );
  service.addRule(
    'tableCell',
    rule(
      (node) => node.nodeName === 'TH' || node.nodeName === 'TD',
      (content, node) => {
        const span = Math.min(Math.max(Number.parseInt(attr(node, 'colspan'), 10) || 1, 1), 20);
        return CELL + content.replace(PRIVATE_MARKERS, '') + CELL.repeat(span - 1);
      },
    ),
  );
  service.addRule(
    'tableRow',
    rule(
      (node) => node.nodeName === 'TR',
      (content) => ROW + content.replace(/\uE001/g, ''),
    ),
  );
  service.addRule(
    'tableCaption',
    rule(
      (node) => node.nodeName === 'CAPTION',
      () => '',
    ),
  );
  service.addRule(
    'table',
    rule(
      (node) => node.nodeName === 'TABLE',
      (content, node) => {
        const caption = Array.from(node.childNodes).find((child) => child.nodeName === 'CAPTION');
        return renderTable(content, caption?.textContent ?? '');
      },
    ),
  );

  // turndown tries the rules added last first: dropping chrome and invisible parts wins over everything else.
  service.addRule(
    'title',
    rule(
      (node) => node.nodeName === 'TITLE',
      (_content, node) => {
        if (title === undefined && !hasAncestor(node, (a) => a.nodeName.toLowerCase() === 'svg')) {
          const text = (node.textContent ?? '').replace(/\s+/g, ' ').trim();
          if (text !== '') title = text;
        }
        return '';
      },
    ),
  );
  service.addRule(
    'dropped',
    rule(
      (node) => (DROPPED_TAGS as readonly string[]).includes(node.nodeName.toLowerCase()),
      () => '',
    ),
  );
  if (mainContent) {
    service.addRule(
      'chrome',
      rule(isChrome, () => ''),
    );
    service.addRule(
      'main',
      rule(
        (node) => isMain(node) || isArticle(node),
        (content, node) => {
          if (isMain(node)) mains.push(content);
          else if (!hasAncestor(node, isArticle)) articles.push(content);
          return `\n\n${content}\n\n`;
        },
      ),
    );
  } else {
    service.addRule(
      'hidden',
      rule(isHidden, () => ''),
    );
  }
  let prepared = stripNonContent(html.replace(PRIVATE_MARKERS, ''));
  const maxHtmlChars = options.maxHtmlChars ?? DEFAULT_MAX_HTML_CHARS;
  const truncated = prepared.length > maxHtmlChars;
  if (truncated) prepared = prepared.slice(0, maxHtmlChars);
  let converted: string;
  try {
    if (estimateNestingDepth(prepared) > MAX_NESTING_DEPTH) throw new Error('nesting too deep');
    converted = service.turndown(prepared);
  } catch {
    const titleMatch = /<title[^>]*>([^<]*)<\/title/i.exec(prepared);
    const fallbackTitle = titleMatch?.[1]?.replace(/\s+/g, ' ').trim();
    return {
      markdown: htmlToPlainText(prepared.replace(/<title[^>]*>[^<]*<\/title\s*>/i, '')),
      title: fallbackTitle ? htmlToPlainText(fallbackTitle) : undefined,
      mainContentOnly: false,
      truncated,
      plainTextFallback: true,
    };
  }

  let markdown = tidy(converted);
  let mainContentOnly = false;
  if (mainContent) {
    const main = mains.map(tidy).filter((text) => text !== '');
    const article = articles.map(tidy).filter((text) => text !== '');
    // Prefer the largest <main>; else all top-level articles, when they hold a fair part of the page's text.
    const chosen = main.length > 0 ? [main.reduce((a, b) => (b.length > a.length ? b : a))] : article.length > 0 ? article : [];
    const chosenText = chosen.join('\n\n---\n\n');
    if (chosenText !== '' && chosenText.length >= Math.min(500, markdown.length * 0.2)) {
      markdown = chosenText;
      mainContentOnly = true;
    }
  }
  return { markdown, title, mainContentOnly, truncated, plainTextFallback: false };
}
