import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a real server that can be "unplugged": while down it cuts every
 * connection at once, as a dropped network does. Keeps the port, so no other test can take it.
 */
export async function startSwitchableProxy(targetPort: number): Promise<{ url: string; setDown(down: boolean): void; close(): Promise<void> }> {
  let down = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    if (down) return client.destroy();
    const upstream = createConnection(targetPort, '127.0.0.1');
    open.add(upstream);
    upstream.on('close', () => open.delete(upstream));
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setDown(d) {
      down = d;
      if (d) for (const s of open) s.destroy();
    },
    close: () => new Promise<void>((r) => {
      for (const s of open) s.destroy();
      server.close(() => r());
    }),
  };
}
