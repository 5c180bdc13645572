import { catalogueDigest, maxCatalogueBytes } from '../tools/catalogue.js';
import type { HostToolCatalogue, HostToolEntry } from '../shared/host-tools.js';
import type { McpServers } from './mcp-servers.js';

/**
 * The catalogue a worker offers now: its own host and remote tools, then its MCP servers' tools as they list them.
 * New sessions record it as they start and running ones take it as they continue as new (the one replay-safe point
 * where a session's tools change), so a server's `list_changed` reaches sessions as a redeploy would. MCP tools past
 * the catalogue's byte limit are left out, with a line in the log.
 */
export function liveCatalogue(
  own: HostToolCatalogue,
  servers: McpServers | undefined,
  log: (line: string) => void = () => {},
): () => HostToolCatalogue {
  if (!servers) return () => own;
  const mcp = servers;
  const reserved = new Set(own.tools.map((tool) => tool.name));
  let source: HostToolEntry[] | undefined;
  let current = own;
  return () => {
    const pending = mcp.pending();
    const catalogue = withServersTools();
    return pending.length > 0 ? { ...catalogue, pending_mcp_servers: pending } : catalogue;
  };

  function withServersTools(): HostToolCatalogue {
    const entries = mcp.entries(reserved);
    if (entries === source) return current;
    source = entries;
    const tools = [...own.tools];
    let bytes = Buffer.byteLength(JSON.stringify(tools));
    for (const entry of entries) {
      const size = Buffer.byteLength(JSON.stringify(entry)) + 1;
      if (bytes + size > maxCatalogueBytes) {
        log(`MCP tool ${entry.name} left out: the catalogue would pass ${maxCatalogueBytes.toLocaleString('en-US')} bytes.`);
        continue;
      }
      bytes += size;
      tools.push(entry);
    }
    current = { digest: tools.length === own.tools.length ? own.digest : catalogueDigest(tools), tools };
    return current;
  }
}
