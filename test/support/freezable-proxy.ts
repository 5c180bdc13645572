import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback that can stop passing bytes without closing anything: the client's connection stays open
 * but no answer reaches it, as on a stream that broke mid-way. Bytes held while frozen are delivered, in order, on
 * thaw.
 */
export class FreezableProxy {
  private readonly server = createServer((socket) => this.accept(socket));
  private readonly sockets = new Set<Socket>();
  private readonly held: Array<() => void> = [];
  private readonly silenced = new WeakSet<Socket>();
  private frozen = false;
  /** How many connections the proxy has accepted. */
  accepted = 0;

  constructor(private readonly target: string) {}

  /** Starts listening and returns the proxy's address as host:port. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const deliver of this.held.splice(0)) deliver();
  }

  /**
   * From now on, drops every byte on the connections open now, both ways, and closes none of them, as a router that
   * forgot them would: only the client's own timers (gRPC keepalive) can tell. New connections pass as before.
   */
  silenceOpenConnections(): void {
    for (const socket of this.sockets) this.silenced.add(socket);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted += 1;
    const separator = this.target.lastIndexOf(':');
    const upstream = createConnection({ host: this.target.slice(0, separator), port: Number(this.target.slice(separator + 1)) });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (this.silenced.has(from)) return;
        const deliver = () => void to.write(chunk);
        if (this.frozen) this.held.push(deliver);
        else deliver();
      });
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => to.destroy());
    }
  }
}
