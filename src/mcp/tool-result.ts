import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Content = CallToolResult['content'][number];

/**
 * An MCP tool result as the text the model reads: text content as it is, structured content as JSON (unless a text
 * part already is that JSON, as servers are asked to send), and images, audio and resources described by their type,
 * MIME type, size and URI rather than dropped.
 */
export function mcpResultText(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts = content.map(describeContent);
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const json = JSON.stringify(structured);
    const texts = content.flatMap((item) => (item.type === 'text' ? [item.text] : []));
    const echoed = texts.some((item) => sameJson(item, json)) || onlyTheTexts(structured, texts);
    if (!echoed) parts.push(json);
  }
  // Servers of the protocol's first version answer with `toolResult`.
  const legacy = (result as { toolResult?: unknown }).toolResult;
  if (parts.length === 0 && legacy !== undefined) parts.push(typeof legacy === 'string' ? legacy : JSON.stringify(legacy));
  return parts.join('\n');
}

function describeContent(item: Content): string {
  switch (item.type) {
    case 'text':
      return item.text;
    case 'image':
    case 'audio':
      return `[${item.type}: ${item.mimeType}, ${base64Bytes(item.data).toLocaleString('en-US')} bytes, not shown]`;
    case 'resource_link':
      return `[resource link: ${item.uri}${item.name ? ` (${item.name})` : ''}${item.mimeType ? `, ${item.mimeType}` : ''}${item.description ? `: ${item.description}` : ''}]`;
    case 'resource': {
      const { resource } = item;
      const mime = resource.mimeType ? `, ${resource.mimeType}` : '';
      if ('text' in resource && typeof resource.text === 'string') {
        return `[resource: ${resource.uri}${mime}, ${resource.text.length.toLocaleString('en-US')} characters]\n${resource.text}`;
      }
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource: ${resource.uri}${mime}, ${base64Bytes(blob).toLocaleString('en-US')} bytes, not shown]`;
    }
    default:
      return `[${String((item as { type?: unknown }).type)} content, not shown]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** Structured content that only wraps the text parts (`{ content: "<the text>" }`) tells the model nothing more. */
function onlyTheTexts(structured: Record<string, unknown>, texts: readonly string[]): boolean {
  const values = Object.values(structured);
  const joined = texts.join('\n');
  return values.length > 0 && values.every((value) => typeof value === 'string' && (texts.includes(value) || value === joined));
}

function sameJson(text: string, json: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === json;
  } catch {
    return false;
  }
}
