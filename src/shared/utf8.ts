/**
 * The length of `text` in UTF-8 bytes, as Temporal's payload limits count it. Workflow code has no Buffer, and this
 * needs no TextEncoder: characters below U+0080 take one byte, below U+0800 two, a surrogate pair four, others three.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}
