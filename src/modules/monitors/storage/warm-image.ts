// The start-up image: the storage's memory (raw history, the hour ring and its trackers) and its user's
// section (the monitors: each monitor's last state) written to one file at every stop and every few
// hours, so that start-up reads it and only the channel entries committed after it, instead of 24 hours
// of entries (2.9 million at 2,000 monitors, about 2 s on the bench machine). See docs/monitors.md,
// "Start-up image".
//
//   file     SeriesNames.imageFile (netprobe.monitors.image) in the data directory, replaced whole (writeFileAtomic)
//   header   32 bytes: "NPMIMG\r\n" | u32 LE version (4) | u32 LE CRC-32 of the body | f64 LE body length | 8 reserved
//   body     f64 id | f64 LSN | f64 written at | f64 watermark | f64 raw_retention_hours
//            | history (history.ts writeImage) | the hour ring (hours.ts writeImage)
//            | the user's section (ImageSection; the monitors': varint n, n rows: varint pk | u8 status
//              | varint fail_streak | f64 last_check | f64 last_rt | f64 cert_valid_to | f64 cert_checked_at
//              (NaN = null) | u8 message present | [utf8 last_message])
//
// The image holds exactly the channel entries up to its LSN: it is taken in one turn of the event loop
// with the store's committedLsn() (every entry's in-memory effect runs in its write's onCommit). It is
// used only when all of these hold, else start-up reads the whole channel as before:
// - its id is the one the meta table holds (written with the image, durable before the file is renamed into
//   place): a database restored from a backup, or one an older build went on writing, holds another;
// - its LSN is not past the database's (a database rolled back);
// - no channel segment holding entries after it was deleted (the meta table's `channel_dropped_to`, written
//   before retention or a history clear deletes segments);
// - it kept results as long as the configuration now asks, and is younger than that (an older build that
//   ran on the files meanwhile keeps no record of what its retention deleted).
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { AppContext } from '../../../core/context.js';
import { writeFileAtomic } from '../../../core/files.js';
import type { Logger } from '../../../core/log.js';
import { ByteReader, ByteWriter, type Store } from '../../../core/store/index.js';
import type { RawHistory } from './history.js';
import type { HourRing } from './hours.js';
import type { SeriesNames } from './names.js';

const MAGIC = Buffer.from('NPMIMG\r\n', 'latin1');
/**
 * 4: the hour ring keeps time set aside (maintenance) per cell. 3: it counts a failed check's time as down,
 * also below the failure threshold (hours.ts, timeStatus); an image of 1 or 2 holds that time as degraded,
 * so it is not used: the start-up after the upgrade reads the results channel instead and recounts the
 * hours not yet in the rollups (migration 212 converts those). 2 added measurements to history pages.
 */
const VERSION = 4;
const READS = [4];
const HEADER_BYTES = 32;

/** Meta table keys. */
export const IMAGE_ID = 'image_id';
export const CHANNEL_DROPPED_TO = 'channel_dropped_to';

/** The storage user's part of the image (the monitors: each monitor's state), after the storage's own. */
export interface ImageSection {
  /** About how many bytes write() adds (the buffer's first size). */
  sizeHint(): number;
  write(w: ByteWriter): void;
  /**
   * Reads the section whole and returns what puts it into memory, called only once the whole image has
   * read well (a malformed image changes nothing). Throws on a malformed section.
   */
  read(r: ByteReader): () => void;
}

export interface ImageParts {
  store: Store;
  names: SeriesNames;
  history: RawHistory;
  hours: HourRing;
  section: ImageSection;
}

/** An image read from disk and checked, not yet installed. */
export interface WarmImage {
  id: number;
  lsn: number;
  writtenAt: number;
  /** The first hour whose rollups were not written when it was taken. */
  watermark: number;
  bytes: number;
  /** Puts the image into memory (hours before `fromHour` left out). Throws on a malformed image. */
  install(parts: ImageParts, fromHour: number): void;
}

const meta = (store: Store, table: string, key: string): number | undefined =>
  store.get<{ value: number }>(`SELECT value FROM ${table} WHERE key = ?`, [key])?.value;

/**
 * Writes the image of what memory holds now. Returns its size, or null when the store refused the write
 * that records its id (closed, disk full): then nothing changed.
 */
export async function writeWarmImage(dir: string, p: ImageParts, o: { now: number; watermark: number; rawRetentionHours: number }):
  Promise<{ bytes: number; lsn: number } | null> {
  const id = randomInt(1, 2 ** 47);
  // The id's write and the snapshot of memory in one turn: the LSN is this write's, and memory holds
  // every entry up to it and none after.
  const recorded = p.store.write((tx) => {
    tx.run(`INSERT OR REPLACE INTO ${p.names.meta} (key, value) VALUES (?, ?)`, [IMAGE_ID, id]);
  }, 'group');
  const lsn = p.store.committedLsn();
  const w = new ByteWriter(HEADER_BYTES + p.history.stats().pages * 1100 + p.section.sizeHint() + 4096);
  w.raw(Buffer.alloc(HEADER_BYTES));
  w.f64(id); w.f64(lsn); w.f64(o.now); w.f64(o.watermark); w.f64(o.rawRetentionHours);
  p.history.writeImage(w);
  p.hours.writeImage(w, -Infinity);
  p.section.write(w);
  const buf = w.view();
  const body = buf.subarray(HEADER_BYTES);
  MAGIC.copy(buf, 0);
  buf.writeUInt32LE(VERSION, 8);
  buf.writeUInt32LE(crc32(body), 12);
  buf.writeDoubleLE(body.length, 16);
  try {
    await recorded;
  } catch {
    return null;
  }
  // The entries up to the LSN (and the id) on disk before the image that counts on them.
  await p.store.flush();
  await writeFileAtomic(join(dir, p.names.imageFile), buf);
  return { bytes: buf.length, lsn };
}

/**
 * Reads the image and checks it against the database and the configuration: the image, or why it is
 * not used (null when there is none). Leftover temp files of an interrupted write are removed.
 */
export function readWarmImage(dir: string, store: Store, names: SeriesNames, rawRetentionHours: number, now: number):
  WarmImage | { unused: string } | null {
  const file = names.imageFile;
  for (const f of readdirSync(dir)) {
    if (f.startsWith(`.${file}.`) && f.endsWith('.tmp')) rmSync(join(dir, f), { force: true });
  }
  let buf: Buffer;
  try {
    buf = readFileSync(join(dir, file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { unused: `unreadable: ${(err as Error).message}` };
  }
  if (buf.length < HEADER_BYTES || !buf.subarray(0, 8).equals(MAGIC)) return { unused: 'not an image file' };
  if (!READS.includes(buf.readUInt32LE(8))) return { unused: `version ${buf.readUInt32LE(8)}, this build reads ${READS.join(' and ')}` };
  const body = buf.subarray(HEADER_BYTES);
  if (buf.readDoubleLE(16) !== body.length || crc32(body) !== buf.readUInt32LE(12)) return { unused: 'damaged (length or checksum)' };
  const r = new ByteReader(body);
  const id = r.f64(), lsn = r.f64(), writtenAt = r.f64();
  const watermark = r.f64();
  const retention = r.f64();
  if (meta(store, names.meta, IMAGE_ID) !== id) {
    return { unused: 'the database does not hold its id (a newer image was being written, or the database was restored '
      + 'or written on by another build)' };
  }
  if (lsn > store.committedLsn()) return { unused: 'it is newer than the database' };
  if ((meta(store, names.meta, CHANNEL_DROPPED_TO) ?? 0) > lsn) return { unused: 'check results after it were deleted' };
  // Older than retention: what an older build's retention deleted since is not recorded (belt and braces).
  if (now - writtenAt > rawRetentionHours * 3_600_000) return { unused: `it is older than ${rawRetentionHours} h` };
  if (retention < rawRetentionHours) {
    return { unused: `it kept ${retention} h of results, the configuration now asks ${rawRetentionHours} h` };
  }
  return {
    id, lsn, writtenAt, watermark, bytes: buf.length,
    install(parts, fromHour) {
      parts.history.readImage(r);
      parts.hours.readImage(r, fromHour);
      const apply = parts.section.read(r);
      if (!r.done) throw new Error('image: bytes after its last section');
      apply();
    },
  };
}

/** Writes the image every `startup_image_hours` and at stop, one write at a time. */
export class StartupImages {
  private timer: { cancel(): void } | null = null;
  private writing: Promise<unknown> | null = null;
  private stopped = true;

  /** `settings`: how often to write one (hours, 0: only at stop) and how long raw results are kept. */
  constructor(private readonly app: Pick<AppContext, 'clock' | 'config'>, private readonly parts: ImageParts,
    private readonly watermark: () => number, private readonly settings: () => { everyHours: number; rawRetentionHours: number },
    private readonly log: Logger) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** After the checks have stopped: the last image, which the next start-up reads. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.writing;
    await this.write('stop');
  }

  /** Writes one image now (after any being written); logs instead of throwing. */
  write(why: 'stop' | 'interval'): Promise<unknown> {
    const run = async () => {
      this.log.debug('writing the start-up image', { why }); // the crash test aims its kills here
      const t0 = performance.now();
      try {
        const got = await writeWarmImage(this.app.config.dataDir, this.parts,
          { now: this.app.clock.now(), watermark: this.watermark(), rawRetentionHours: this.settings().rawRetentionHours });
        if (got) this.log.info('start-up image written', { why, bytes: got.bytes, lsn: got.lsn, ms: Math.round(performance.now() - t0) });
      } catch (err) {
        this.log.warn('writing the start-up image failed; the next start-up reads the whole channel', { err: err as Error });
      }
    };
    const next = (this.writing ?? Promise.resolve()).then(run);
    this.writing = next;
    void next.finally(() => { if (this.writing === next) this.writing = null; });
    return next;
  }

  /** The setting changed: the next image comes that long from now (0: only at stop). */
  reschedule(): void {
    this.timer?.cancel();
    this.timer = null;
    this.schedule();
  }

  private schedule(): void {
    const hours = this.settings().everyHours;
    if (this.stopped || hours <= 0) return;
    this.timer = this.app.clock.setTimeout(() => {
      this.timer = null;
      void this.write('interval').finally(() => this.schedule());
    }, hours * 3_600_000);
  }
}
