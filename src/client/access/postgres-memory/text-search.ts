/**
 * Full-text search in PostgreSQL. The `english` configuration stems words (a search for "deploy" finds
 * "deployments") and drops English stop words, which ranks English memories well; text in other languages is
 * still found word for word, as both sides are processed alike. Tags weigh more (A) than content (B), as in the
 * workflow store.
 */
export const textSearchConfig = 'english';

/** The tsvector of a memory, from its content and tags given as parameters `$content` and `$tags` (text[]). */
export function memoryVectorSql(content: string, tags: string): string {
  return (
    `setweight(to_tsvector('${textSearchConfig}', array_to_string(${tags}, ' ')), 'A') || ` +
    `setweight(to_tsvector('${textSearchConfig}', ${content}), 'B')`
  );
}

const maxQueryWords = 32;

/**
 * The words of a query, each sent as its own parameter: a memory matches when it has any of them (as the workflow
 * store's OR search). The query's text never becomes SQL or tsquery syntax; plainto_tsquery reads each word as
 * plain text.
 */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).filter(Boolean))].slice(0, maxQueryWords);
}

/** The OR of plainto_tsquery over `count` parameters from `$first` on. */
export function anyWordTsquerySql(count: number, first: number): string {
  return Array.from({ length: count }, (_, index) => `plainto_tsquery('${textSearchConfig}', $${first + index})`).join(' || ');
}
