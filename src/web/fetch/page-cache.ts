/**
 * A self-cleaning cache of fetched pages keyed by URL: entries live 30 minutes (by the clock the caller passes),
 * expired entries are swept on every access (no timers), and the cache is bounded by entry count and total size,
 * dropping the least recently used entries first.
 */

export const DEFAULT_CACHE_TTL_MS = 30 * 60 * 1000;
export const DEFAULT_CACHE_MAX_ENTRIES = 200;
/** Total size bound, counted as the UTF-16 length of the cached text (roughly its memory). */
export const DEFAULT_CACHE_MAX_CHARS = 50 * 1024 * 1024;

/** What webFetch keeps per URL: the readable content before any extraction, or a cross-host redirect. */
export type CachedPage =
  | {
      kind: 'page';
      /** The URL the content came from (after same-host redirects). */
      url: string;
      mediaType: string;
      title: string | undefined;
      /** Markdown for HTML, the text itself for text and JSON. */
      content: string;
      /** Notes about how the content was made (e.g. "main content only"). */
      notes: string[];
    }
  | {
      kind: 'redirect';
      fromUrl: string;
      redirectUrl: string;
      status: number;
    };

export interface PageCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  maxChars?: number;
}

interface Entry {
  value: CachedPage;
  expiresAt: number;
  size: number;
}

function sizeOf(value: CachedPage): number {
  return value.kind === 'page'
    ? value.content.length + value.url.length + (value.title?.length ?? 0) + 64
    : value.fromUrl.length + value.redirectUrl.length + 64;
}

export class PageCache {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly maxChars: number;
  /** Map order is recency order: least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private totalChars = 0;

  constructor(options: PageCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES;
    this.maxChars = options.maxChars ?? DEFAULT_CACHE_MAX_CHARS;
  }

  /** The live entry for this URL, or undefined. `now` is the current time in ms. */
  get(url: string, now: number): CachedPage | undefined {
    this.sweep(now);
    const entry = this.entries.get(url);
    if (entry === undefined) return undefined;
    // Refresh recency (not expiry).
    this.entries.delete(url);
    this.entries.set(url, entry);
    return entry.value;
  }

  /** Stores a page for `ttlMs` from `now`. A value larger than the whole cache is not stored. */
  set(url: string, value: CachedPage, now: number): void {
    this.sweep(now);
    this.remove(url);
    const size = sizeOf(value);
    if (size > this.maxChars || this.maxEntries <= 0) return;
    this.entries.set(url, { value, expiresAt: now + this.ttlMs, size });
    this.totalChars += size;
    for (const [key] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.totalChars <= this.maxChars) break;
      this.remove(key);
    }
  }

  delete(url: string): boolean {
    return this.remove(url);
  }

  clear(): void {
    this.entries.clear();
    this.totalChars = 0;
  }

  /** Drops every expired entry; returns how many were dropped. */
  sweep(now: number): number {
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.remove(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  /** Live and not yet swept entries. */
  get size(): number {
    return this.entries.size;
  }

  /** Total size of the stored entries, in characters. */
  get chars(): number {
    return this.totalChars;
  }

  private remove(url: string): boolean {
    const entry = this.entries.get(url);
    if (entry === undefined) return false;
    this.entries.delete(url);
    this.totalChars -= entry.size;
    return true;
  }
}
