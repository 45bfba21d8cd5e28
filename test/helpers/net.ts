// Loopback ports for tests.
import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';

/** A loopback TCP port that nothing listens on right now (bound by the OS, then released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/**
 * `n` distinct loopback TCP ports nothing listens on: all are held until every one is chosen (two calls of
 * freePort() in a row can get the same port back, and a config with it twice fails to start).
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, async () => {
    const s = createServer();
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return s;
  }));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

/** A loopback UDP port that no socket is bound to right now (bound by the OS, then released). */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve, reject) => { s.once('error', reject); s.bind(0, '127.0.0.1', resolve); });
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
