import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textAttributeValue } from '../../src/shared/text-attribute.js';
import { defaultTitle } from '../../src/shared/titles.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

/**
 * Temporal's PostgreSQL visibility schema (postgres12) stores each Text search attribute as
 * `(search_attributes->>'TextNN')::tsvector`. This runs that cast on a real PostgreSQL for the titles Arbor writes.
 */
describe('titles in PostgreSQL visibility (a real PostgreSQL from the system packages)', () => {
  let postgres: TestPostgres;
  const titles = [
    'Research: A vs B',
    "'Quoted' at the start",
    "'Quote that never ends",
    'A path like C:\\temp\\',
    'Ends in a backslash \\',
    'Meeting at 10:30: agenda',
    'Étude : « résumé » d’été',
    '研究：東京の天気',
    defaultTitle('Summarise: the plot of "Hamlet", in three sentences, for a reader who has never seen it on a stage'),
  ];

  beforeAll(async () => {
    postgres = await startPostgres();
    await postgres.sql(
      "CREATE TABLE visibility (search_attributes JSONB, title TSVECTOR GENERATED ALWAYS AS ((search_attributes->>'ArborTitle')::tsvector) STORED)",
    );
  }, 600_000);

  afterAll(async () => {
    await postgres?.stop();
  });

  const insert = (value: string) =>
    postgres.sql(`INSERT INTO visibility (search_attributes) VALUES (${literal(JSON.stringify({ ArborTitle: value }))}) RETURNING title`);

  it('refuses some of those titles as they are, as Temporal’s schema would', async () => {
    await expect(insert('Research: A vs B')).rejects.toThrow(/syntax error in tsvector/);
    await expect(insert("'Quote that never ends")).rejects.toThrow(/syntax error in tsvector/);
    await expect(insert('Ends in a backslash \\')).rejects.toThrow(/escaped character/);
  });

  it('takes every title in the form Arbor writes it, with its words as lexemes', async () => {
    for (const title of titles) {
      const stored = await insert(textAttributeValue(title));
      expect(stored.length, title).toBeGreaterThan(0);
    }
    expect(await insert(textAttributeValue('Research: A vs B'))).toBe("'A' 'B' 'Research꞉' 'vs'");
  });
});

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
