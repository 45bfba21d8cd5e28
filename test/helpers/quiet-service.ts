// The real service started in this process without listening, on a fresh data directory: for tests that
// read what it declares (its routes and their schemas, its inventory types, its configuration keys).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service } from '../../src/main.js';

export async function startQuietService(name: string): Promise<{ service: Service; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), `netprobe-${name}-`));
  const service = await startService({ env: { NETPROBE_DATA_DIR: dataDir }, logWrite: () => {} });
  return {
    service,
    async close() {
      await service.shutdown('test done');
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
