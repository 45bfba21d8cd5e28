// Interface polling (docs/snmp.md, "Interface polling"): what one poll of a device reads (read.ts), the
// rates two polls make (rates.ts) and what the history keeps of them per interface (history/). The
// service (service.ts) schedules polls per device, matches interfaces across polls (match.ts) and
// hands each interface's rates to the history under a stable key (snmp_poll_interfaces.id).

/** One interface as one poll read it. Counters are bigints (Counter64 goes past 2^53); null: the agent lacks the column. */
export interface IfSample {
  /** ifIndex. */
  index: number;
  /** ifName (ifXTable), ifDescr, ifAlias: text or null. */
  name: string | null;
  descr: string | null;
  alias: string | null;
  /** ifType (IANAifType number). */
  type: number | null;
  /** ifAdminStatus and ifOperStatus as numbers (RFC 2863: 1 up, 2 down, 3 testing, 4 unknown, 5 dormant, 6 notPresent,
   *  7 lowerLayerDown). */
  admin: number | null;
  oper: number | null;
  /** Bits per second: ifHighSpeed x 1e6 when ifSpeed saturates (4294967295) or is missing, else ifSpeed; null when neither. */
  speed_bps: number | null;
  /** ifLastChange and ifCounterDiscontinuityTime, TimeTicks (1/100 s of sysUpTime). */
  last_change: number | null;
  discontinuity: number | null;
  /** Whether the octet and packet counters below are the 64-bit ones (ifHC*); false: the 32-bit ones, which wrap at 2^32. */
  hc: boolean;
  in_octets: bigint | null;
  out_octets: bigint | null;
  in_ucast: bigint | null;
  out_ucast: bigint | null;
  in_mcast: bigint | null;
  out_mcast: bigint | null;
  in_bcast: bigint | null;
  out_bcast: bigint | null;
  /** Always 32-bit (IF-MIB has no HC error or discard counters). */
  in_errors: bigint | null;
  out_errors: bigint | null;
  in_discards: bigint | null;
  out_discards: bigint | null;
}

/** One poll of one device: every interface it reads, in one request train. */
export interface DeviceSample {
  /** Epoch ms the train's first answer came. */
  t: number;
  /** sysUpTime (1/100 s): goes back when the agent restarts. */
  sys_uptime: number | null;
  /** hrSystemUptime (1/100 s), null without HOST-RESOURCES-MIB: goes back when the host restarts (its counters reset). */
  host_uptime: number | null;
  interfaces: IfSample[];
  /** Requests (PDUs) the train sent, and how long it took. */
  requests: number;
  elapsed_ms: number;
}

/**
 * What the history keeps of one interface at one poll: rates over the interval since the poll before, per second.
 * A rate is null when it cannot be known (the first poll, a counter reset or discontinuity, a column the agent
 * lacks): the graphs show a gap there, never a zero or a spike.
 */
export interface IfPoint {
  /** Epoch ms of the poll. */
  t: number;
  in_bps: number | null;
  out_bps: number | null;
  /** Packets per second, unicast + multicast + broadcast. */
  in_pps: number | null;
  out_pps: number | null;
  in_errors_ps: number | null;
  out_errors_ps: number | null;
  in_discards_ps: number | null;
  out_discards_ps: number | null;
  /** ifOperStatus is up (1); null when unread. */
  up: boolean | null;
  speed_bps: number | null;
}
