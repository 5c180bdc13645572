import { describe, expect, it } from 'vitest';
import { estimateNestingDepth, htmlToMarkdown, MAX_NESTING_DEPTH, stripNonContent } from '../../src/web/fetch/to-markdown.js';

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Configuring the client &mdash; Example Docs</title>
  <link rel="stylesheet" href="/static/site.css">
  <style>body { font-family: sans-serif; }</style>
  <script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}</script>
</head>
<body>
  <a class="skip-link" href="#content">Skip to content</a>
  <header class="site-header" role="banner">
    <a href="/" class="logo"><img src="/logo.svg" alt="Example Docs home"></a>
    <form action="/search" role="search"><input type="search" name="q" placeholder="Search docs"><button>Go</button></form>
  </header>
  <nav class="sidebar"><ul><li><a href="/docs/intro">Introduction</a></li><li><a href="/docs/install">Installation</a></li></ul></nav>
  <div id="cookie-consent">We use cookies to improve your experience. <button>Accept all</button></div>
  <main id="content">
    <article>
      <h1>Configuring the client<a class="headerlink" href="#configuring" title="Permalink">¶</a></h1>
      <p>The client reads its settings from <code>client.toml</code>. See the <a href="../reference/settings.html#timeouts">settings reference</a> or the <a href="https://github.com/example/client/issues">issue tracker</a>.</p>
      <h2>Options</h2>
      <table class="docutils">
        <thead><tr><th>Option</th><th>Type</th><th>Default</th></tr></thead>
        <tbody>
          <tr><td><code>timeout</code></td><td>integer</td><td>30</td></tr>
          <tr><td><code>retries</code></td><td>integer</td><td>3</td></tr>
          <tr><td><code>mode</code></td><td>string</td><td><code>"fast" | "safe"</code></td></tr>
        </tbody>
      </table>
      <h2>Example</h2>
      <div class="highlight-python notranslate"><div class="highlight"><pre><span class="kn">import</span> <span class="nn">client</span>
<span class="n">c</span> <span class="o">=</span> <span class="n">client</span><span class="o">.</span><span class="n">Client</span><span class="p">(</span><span class="n">timeout</span><span class="o">=</span><span class="mi">10</span><span class="p">)</span>
</pre></div></div>
      <p>Shell:</p>
      <pre><code class="language-bash">pip install example-client
client --version</code></pre>
      <ul><li>First point</li><li>Second point with <strong>bold</strong> text</li></ul>
      <p><a href="javascript:void(0)" onclick="share()">Share this</a></p>
    </article>
  </main>
  <aside class="toc"><h3>On this page</h3><ul><li><a href="#options">Options</a></li></ul></aside>
  <footer class="site-footer"><p>&copy; 2024 Example Inc. &middot; <a href="/privacy">Privacy</a></p></footer>
  <script src="/static/app.js"></script>
</body>
</html>`;

describe('htmlToMarkdown', () => {
  const page = htmlToMarkdown(DOCS_PAGE, 'https://docs.example.com/en/latest/guide/config.html');
  const md = page.markdown;

  it('keeps the main content and reports that it did', () => {
    expect(page.mainContentOnly).toBe(true);
    expect(md.startsWith('# Configuring the client')).toBe(true);
    expect(md).toContain('- Second point with **bold** text');
  });

  it('drops navigation, banners, search forms, cookie notices, sidebars and footers', () => {
    for (const boilerplate of [
      'Skip to content',
      'Search docs',
      'Introduction',
      'Installation',
      'cookies',
      'Accept all',
      'On this page',
      '2024 Example Inc',
      'Privacy',
      'Example Docs home',
    ]) {
      expect(md).not.toContain(boilerplate);
    }
  });

  it('leaves scripts, styles and the title element out of the text and returns the title separately', () => {
    expect(md).not.toMatch(/dataLayer|font-family|gtag/);
    expect(page.title).toBe('Configuring the client — Example Docs');
    expect(md).not.toContain('Example Docs');
  });

  it('turns tables into GitHub-flavoured Markdown tables, escaping pipes in cells', () => {
    expect(md).toContain(
      [
        '| Option | Type | Default |',
        '| --- | --- | --- |',
        '| `timeout` | integer | 30 |',
        '| `retries` | integer | 3 |',
        '| `mode` | string | `"fast" \\| "safe"` |',
      ].join('\n'),
    );
  });

  it('fences code blocks with the language named by the page', () => {
    expect(md).toContain('```python\nimport client\nc = client.Client(timeout=10)\n```');
    expect(md).toContain('```bash\npip install example-client\nclient --version\n```');
  });

  it('resolves relative links against the page URL, keeps absolute ones, and drops permalink and script links', () => {
    expect(md).toContain('[settings reference](https://docs.example.com/en/latest/reference/settings.html#timeouts)');
    expect(md).toContain('[issue tracker](https://github.com/example/client/issues)');
    expect(md).not.toContain('¶');
    expect(md).not.toContain('javascript:');
    expect(md).toContain('Share this');
  });

  it('keeps page chrome when main-content extraction is off, but never scripts', () => {
    const full = htmlToMarkdown(DOCS_PAGE, 'https://docs.example.com/', { mainContent: false });
    expect(full.mainContentOnly).toBe(false);
    expect(full.markdown).toContain('Introduction');
    expect(full.markdown).toContain('Configuring the client');
    expect(full.markdown).not.toContain('dataLayer');
  });

  it('falls back to the whole body minus chrome when the page marks no main content', () => {
    const html = `<html><body><div id="top-nav" role="navigation"><a href="/">Home</a> <a href="/blog">Blog</a></div>
      <div class="content"><h1>Plain page</h1><p>Some text that matters.</p></div>
      <footer>Footer links</footer></body></html>`;
    const result = htmlToMarkdown(html, 'https://example.org/');
    expect(result.mainContentOnly).toBe(false);
    expect(result.markdown).toBe('# Plain page\n\nSome text that matters.');
  });

  it('keeps a header inside an article (it usually holds the headline) but not the page header', () => {
    const html = `<body><header><p>Site banner</p></header><article><header><h1>Headline</h1><p class="byline">By A. Writer</p></header>
      <p>${'Body text. '.repeat(60)}</p><footer>Filed under news</footer></article></body>`;
    const result = htmlToMarkdown(html, 'https://news.example/');
    expect(result.markdown).toContain('# Headline');
    expect(result.markdown).toContain('By A. Writer');
    expect(result.markdown).not.toContain('Site banner');
  });

  it('drops hidden elements', () => {
    const html = `<main><p>Visible</p><div hidden>Hidden one</div><div aria-hidden="true">Hidden two</div><p style="display: none">Hidden three</p></main>`;
    expect(htmlToMarkdown(html, 'https://example.org/').markdown).toBe('Visible');
  });

  it('renders a table without a header row using its first row as header, padding short rows', () => {
    const html = `<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td>1</td><td>2</td></tr></table>`;
    expect(htmlToMarkdown(html, 'https://example.org/').markdown).toBe('| a | b | c |\n| --- | --- | --- |\n| 1 | 2 |  |');
  });

  it('unfolds one-column layout tables into blocks instead of a table', () => {
    const html = `<table><tr><td><h2>Section</h2><p>First paragraph.</p></td></tr><tr><td><p>Second paragraph.</p></td></tr></table>`;
    expect(htmlToMarkdown(html, 'https://example.org/').markdown).toBe('## Section\n\nFirst paragraph.\n\nSecond paragraph.');
  });

  it('uses a longer fence when the code itself contains backticks', () => {
    const html = '<pre><code>echo ```inner```</code></pre>';
    expect(htmlToMarkdown(html, 'https://example.org/').markdown).toBe('````\necho ```inner```\n````');
  });

  it('resolves image sources and drops images without alt text or with data URIs', () => {
    const html = `<main><p>Text</p><img src="img/chart.png" alt="Sales chart"><img src="/spacer.gif" alt=""><img src="data:image/png;base64,AAAA" alt="Inline"></main>`;
    const md = htmlToMarkdown(html, 'https://example.org/report/').markdown;
    expect(md).toContain('![Sales chart](https://example.org/report/img/chart.png)');
    expect(md).not.toContain('spacer');
    expect(md).not.toContain('data:');
    expect(md).toContain('Inline');
  });

  it('joins several top-level articles when there is no <main>', () => {
    const body = 'Long enough body text for a post. '.repeat(20);
    const html = `<body><nav>Menu</nav><article><h2>Post one</h2><p>${body}</p></article><article><h2>Post two</h2><p>${body}</p></article><div class="sidebar-widget">Widget</div></body>`;
    const result = htmlToMarkdown(html, 'https://blog.example/');
    expect(result.mainContentOnly).toBe(true);
    expect(result.markdown).toMatch(/^## Post one[\s\S]+---\n\n## Post two/);
    expect(result.markdown).not.toContain('Widget');
  });
});

describe('htmlToMarkdown lists', () => {
  it('writes compact bullet and numbered lists, nested lists indented under their item', () => {
    const html = '<ol start="3"><li>Three</li><li>Four<ul><li>Inner</li></ul></li></ol>';
    expect(htmlToMarkdown(html, 'https://example.org/').markdown).toBe('3. Three\n4. Four\n   - Inner');
  });
});

describe('htmlToMarkdown on heavy pages', () => {
  it('removes scripts, styles, SVG and comments before conversion, including unusual casing and unclosed ones', () => {
    const html = `<p>Keep one</p><SCRIPT type="module">if (a < b) { document.write("<p>DROP1</p>") }</SCRIPT><!-- <p>commented</p> -->
      <style>p::after { content: "DROP2" }</style><svg viewBox="0 0 1 1"><title>icon</title><text>DROP3</text></svg><p>Keep two</p><styles-are-not-style>Kept</styles-are-not-style><script>unclosed(`;
    expect(stripNonContent(html)).not.toMatch(/DROP|commented|icon|unclosed/);
    expect(htmlToMarkdown(html, 'https://example.org/').markdown).toBe('Keep one\n\nKeep two\n\nKept');
  });

  it('converts only the first part of an enormous page, and says so', () => {
    const html = `<main>${'<p>Paragraph of text.</p>'.repeat(2_000)}</main>`;
    const result = htmlToMarkdown(html, 'https://example.org/', { maxHtmlChars: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.markdown.length).toBeLessThan(12_000);
    expect(result.markdown.startsWith('Paragraph of text.')).toBe(true);
    expect(htmlToMarkdown(html, 'https://example.org/').truncated).toBe(false);
  });

  it('reduces absurdly deep nesting to plain text quickly instead of overflowing the stack', () => {
    expect(estimateNestingDepth('<div><div><p>a<p>b<br><img src=x></div></div>')).toBe(2);
    const depth = MAX_NESTING_DEPTH * 20;
    const html = `<title>Deep &amp; dark</title>${'<div>'.repeat(depth)}<p>Deep &amp; text</p>${'</div>'.repeat(depth)}`;
    const started = Date.now();
    const result = htmlToMarkdown(html, 'https://example.org/');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.plainTextFallback).toBe(true);
    expect(result.markdown).toBe('Deep & text');
    expect(result.title).toBe('Deep & dark');
  });
});

describe('htmlToMarkdown chrome detection', () => {
  it('keeps a large wrapper whose class merely mentions a notice', () => {
    const text = 'Real article text. '.repeat(200);
    const html = `<body><div class="page has-cookie-banner"><h1>Title</h1><p>${text}</p></div><div class="cookie-notice">Accept cookies</div></body>`;
    const md = htmlToMarkdown(html, 'https://example.org/').markdown;
    expect(md).toContain('# Title');
    expect(md).toContain('Real article text.');
    expect(md).not.toContain('Accept cookies');
  });
});
