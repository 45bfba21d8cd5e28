// Loopback ports for tests.
import { createServer, type AddressInfo } from 'node:net';

/** A loopback TCP port that nothing listens on right now (bound by the OS, then released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
