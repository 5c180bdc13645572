/**
 * Temporal's PostgreSQL visibility stores a Text search attribute through a raw `::tsvector` cast, which refuses a
 * colon not followed by a position (`Research: A vs B`), a lexeme that starts with a quote, and a trailing backslash
 * (an open upstream defect); the server then retries that visibility write for ever and the session never shows
 * in its tree. Arbor writes its Text attributes with those three characters swapped for look-alikes the cast takes
 * anywhere, and swaps them back where it reads the attributes, so what people see is the text as written. (A title
 * that already held one of the look-alikes reads back with the ASCII character.)
 */
const lookAlikes: ReadonlyMap<string, string> = new Map([
  [':', '\uA789'], // MODIFIER LETTER COLON
  ["'", '\u2019'], // RIGHT SINGLE QUOTATION MARK
  ['\\', '\u29F5'], // REVERSE SOLIDUS OPERATOR
]);
const originals: ReadonlyMap<string, string> = new Map([...lookAlikes].map(([original, lookAlike]) => [lookAlike, original]));

/** The value to write to a Text search attribute for `text`. */
export function textAttributeValue(text: string): string {
  return text.replace(/[:'\\]/g, (character) => lookAlikes.get(character)!);
}

/** The text a Text search attribute was written for (`textAttributeValue` undone). */
export function textFromAttribute(value: string): string {
  return value.replace(/[\uA789\u2019\u29F5]/g, (character) => originals.get(character)!);
}
