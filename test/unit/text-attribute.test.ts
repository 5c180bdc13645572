import { describe, expect, it } from 'vitest';
import { textAttributeValue, textFromAttribute } from '../../src/shared/text-attribute.js';

describe('Text search attribute values', () => {
  const titles = ['Research: A vs B', "'quoted' start", 'ends in a backslash \\', 'C:\\temp\\', 'Plain title', '研究: 東京'];

  it('hold no colon, single quote or backslash, the characters a raw tsvector cast refuses', () => {
    for (const title of titles) expect(textAttributeValue(title)).not.toMatch(/[:'\\]/);
  });

  it('read back as the text written', () => {
    for (const title of titles) expect(textFromAttribute(textAttributeValue(title))).toBe(title);
  });

  it('leave a title without those characters as it is', () => {
    expect(textAttributeValue('Plan a picnic for four people')).toBe('Plan a picnic for four people');
  });
});
