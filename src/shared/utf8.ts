/**
 * UTF-8 sizes, as Temporal's payload limits count them. Workflow code has no Buffer, and these need no TextEncoder:
 * characters below U+0080 take one byte, below U+0800 two, a surrogate pair four, others three.
 */

/** The length of `text` in UTF-8 bytes. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const size = charSize(text, index);
    bytes += size;
    if (size === 4) index++;
  }
  return bytes;
}

/** The longest start of `text` that takes at most `maxBytes` bytes, never splitting a character. */
export function sliceToUtf8Bytes(text: string, maxBytes: number): string {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const size = charSize(text, index);
    if (bytes + size > maxBytes) return text.slice(0, index);
    bytes += size;
    if (size === 4) index++;
  }
  return text;
}

/** The bytes of the character at `index` (4 for a surrogate pair starting there). */
function charSize(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) return 4;
  return 3;
}
