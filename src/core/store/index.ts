// Public surface of the store: the contract (types.ts) and the one way to open it.
export type {
  ChannelEntry, Durability, Migration, MigrationRange, Row, SqlParams, SqlValue, Store, StoreOptions, StoreStats, Tx,
} from './types.js';
export { openStore, JOURNAL_FILE, SNAPSHOT_FILE } from './store.js';
export { MIGRATION_RANGES } from './migrations.js';
/** The binary codec of journal records, for channel owners encoding their entries the same way. */
export { ByteReader, ByteWriter } from './codec.js';
