// What a user of the storage names its own: the store channel its results go to, its tables and its
// start-up image file. The monitors' are MONITOR_SERIES (index.ts); another user (SNMP counters over
// time, path and throughput tests) creates tables of the same shape under its own names, in its own
// migrations:
//
//   <rollups>         (m INTEGER, k INTEGER, b INTEGER, checks, up, degraded, down, rt_sum, rt_count INTEGER NOT NULL,
//                      rt_min, rt_max INTEGER, hist BLOB, ms_up, ms_degraded, ms_down, ms_maint INTEGER NOT NULL DEFAULT 0,
//                      PRIMARY KEY (m, k, b)) WITHOUT ROWID
//   <measureRollups>  (m INTEGER, k INTEGER, b INTEGER, x INTEGER, n, total, lo, hi INTEGER NOT NULL,
//                      PRIMARY KEY (m, k, b, x)) WITHOUT ROWID
//   <messages>        (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)
//   <measures>        (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)
//   <meta>            (key TEXT PRIMARY KEY, value INTEGER NOT NULL)
//
// `m` is the series key: an integer the user gives each series (a monitor's pk), never reused.

export interface SeriesNames {
  /** The store channel of the raw results (docs/store.md, "Channels"). */
  channel: string;
  /** Hour and day aggregates per series. */
  rollups: string;
  /** Hour and day aggregates per series and named measurement (x: its id): count, sum, min and max, in hundredths. */
  measureRollups: string;
  /** The result-message dictionary. */
  messages: string;
  /** The measurement-name dictionary (measures.ts). */
  measures: string;
  /** Bookkeeping: the rollup watermark, the start-up image's id, what the channel lost. */
  meta: string;
  /** The start-up image's file in the data directory. */
  imageFile: string;
  /** An earlier build's raw-results table, moved into the channel at start (monitors only). */
  legacyResults?: string;
}
