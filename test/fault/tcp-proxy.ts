import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * What a cut does:
 * - `reset`: open connections are reset (RST) and new ones are reset as soon as accepted, as
 *   when the server restarts or a firewall rejects;
 * - `blackhole`: open connections are reset and new ones are accepted but never answered, as on
 *   a network partition: a client notices only through its own timeouts.
 */
export type CutMode = 'reset' | 'blackhole';

/**
 * A TCP proxy on 127.0.0.1 in front of a real service (Postgres, Redis), which a test can cut
 * and restore. Faults are injected here, never by stopping the machine's services.
 */
export class TcpProxy {
  private readonly server: Server;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private readonly held = new Set<Socket>();
  private cutMode: CutMode | undefined;
  /** Connections accepted since start (for the figures). */
  accepted = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    server: Server,
  ) {
    this.server = server;
  }

  /** Starts a proxy to host:port on an ephemeral loopback port. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(target, server);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The URL of the proxied service with this proxy's port (user, path and query kept). */
  url(serviceUrl: string): string {
    const u = new URL(serviceUrl);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  get isCut(): boolean {
    return this.cutMode !== undefined;
  }

  /** Cuts the service off: every open connection is reset; new ones as the mode says. */
  cut(mode: CutMode): void {
    this.cutMode = mode;
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** Lets connections through again; connections held by a blackhole are reset. */
  restore(): void {
    this.cutMode = undefined;
    for (const socket of this.held) socket.resetAndDestroy();
    this.held.clear();
  }

  async close(): Promise<void> {
    this.cut('reset');
    this.restore();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    client.on('error', () => {
      // A reset client is the point of a cut; its socket error needs no report.
    });
    if (this.cutMode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (this.cutMode === 'blackhole') {
      this.held.add(client);
      client.on('close', () => this.held.delete(client));
      // Read and drop what the client sends, so it never sees back-pressure, only silence.
      client.resume();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    upstream.on('error', () => client.destroy());
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
