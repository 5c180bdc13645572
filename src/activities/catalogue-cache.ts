import type { HostToolCatalogue } from '../shared/host-tools.js';

export type FetchCatalogue = (sessionId: string, runId: string) => Promise<HostToolCatalogue | null>;

/**
 * The host tool catalogues model calls name by digest. A session's calls carry only the digest of the catalogue it
 * recorded (so history does not grow with it); a worker that serves that same catalogue uses its own, and one that does
 * not (a redeploy changed the tools) asks the session once and keeps the answer by digest. Bounded: least recently
 * used digests are dropped.
 */
export class CatalogueCache {
  private readonly byDigest = new Map<string, HostToolCatalogue>();

  constructor(
    /** The catalogue this worker offers (a function: the one it offers now, as its MCP servers change it). */
    private readonly own: HostToolCatalogue | undefined | (() => HostToolCatalogue | undefined),
    private readonly fetchCatalogue: FetchCatalogue,
    private readonly maxCatalogues = 32,
  ) {}

  async resolve(sessionId: string, runId: string, digest: string | undefined): Promise<HostToolCatalogue | undefined> {
    if (digest === undefined) return undefined;
    const own = typeof this.own === 'function' ? this.own() : this.own;
    if (own?.digest === digest) return own;
    let catalogue = this.byDigest.get(digest);
    if (!catalogue) {
      const fetched = await this.fetchCatalogue(sessionId, runId);
      if (!fetched || fetched.digest !== digest) {
        throw new Error(
          `session ${sessionId} holds no host tool catalogue with digest ${digest} (it answered ${fetched?.digest ?? 'none'})`,
        );
      }
      catalogue = fetched;
    }
    this.byDigest.delete(digest);
    this.byDigest.set(digest, catalogue);
    while (this.byDigest.size > this.maxCatalogues) this.byDigest.delete(this.byDigest.keys().next().value!);
    return catalogue;
  }
}
