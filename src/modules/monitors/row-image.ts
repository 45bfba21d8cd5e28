// The monitors' section of the start-up image (storage/warm-image.ts): each monitor's state as memory
// holds it (status, failure run, last check, certificate expiry), which start-up would otherwise find
// in the channel entries the image spares it.
//
//   varint n, n rows: varint pk | u8 status (SERIES_STATES) | varint fail_streak | f64 last_check | f64 last_rt
//     | f64 cert_valid_to | f64 cert_checked_at (NaN = null) | u8 message present | [utf8 last_message]
import type { Registry } from './live.js';
import type { MonitorStatus } from './schemas.js';
import { SERIES_STATES, type ImageSection } from './storage/index.js';

export function rowImage(registry: Registry): ImageSection {
  return {
    sizeHint: () => registry.size * 1600,
    write(w) {
      w.varint(registry.size);
      for (const m of registry.all()) {
        const r = m.row;
        w.varint(r.pk); w.u8(SERIES_STATES.indexOf(r.status)); w.varint(r.fail_streak);
        w.f64(r.last_check ?? NaN); w.f64(r.last_rt ?? NaN); w.f64(r.cert_valid_to ?? NaN); w.f64(r.cert_checked_at ?? NaN);
        w.u8(r.last_message == null ? 0 : 1);
        if (r.last_message != null) w.utf8(r.last_message);
      }
    },
    read(r) {
      // Read whole before any row is changed, so that a malformed image changes none.
      const rows: { pk: number; status: MonitorStatus; streak: number; lastCheck: number; lastRt: number; validTo: number;
        checkedAt: number; message: string | null }[] = [];
      for (let n = r.varint(); n > 0; n--) {
        const pk = r.varint();
        const status = SERIES_STATES[r.u8()];
        if (!status) throw new Error('image: bad monitor status');
        const streak = r.varint();
        const lastCheck = r.f64(), lastRt = r.f64(), validTo = r.f64(), checkedAt = r.f64();
        const message = r.u8() ? r.utf8() : null;
        rows.push({ pk, status, streak, lastCheck, lastRt, validTo, checkedAt, message });
      }
      return () => {
        for (const x of rows) {
          const row = registry.get(x.pk)?.row;
          if (!row) continue; // deleted since: its entries are skipped too
          row.status = x.status;
          row.fail_streak = x.streak;
          row.last_check = nullIfNaN(x.lastCheck);
          row.last_rt = nullIfNaN(x.lastRt);
          row.cert_valid_to = nullIfNaN(x.validTo);
          row.cert_checked_at = nullIfNaN(x.checkedAt);
          row.last_message = x.message;
        }
      };
    },
  };
}

const nullIfNaN = (v: number): number | null => (Number.isNaN(v) ? null : v);
