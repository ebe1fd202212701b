/**
 * A TCP proxy on 127.0.0.1 in front of a database server, which a test can switch to swallowing:
 * the connections it carried are cut, and new ones are accepted but never answered, as when a
 * failover leaves the old address silent instead of refusing.
 */
import net from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Cuts every carried connection; new ones are held open and never answered. */
  swallow(): void;
  /** Forwards new connections again (and closes the swallowed ones). */
  forward(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `127.0.0.1:targetPort`, forwarding.
 * @param targetPort - the database server's port.
 */
export async function startProxy(targetPort: number): Promise<TcpProxy> {
  let swallowing = false;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (swallowing) return; // accepted, never answered
    const upstream = net.connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    swallow() {
      swallowing = true;
      cutAll();
    },
    forward() {
      swallowing = false;
      cutAll();
    },
    async close() {
      cutAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
