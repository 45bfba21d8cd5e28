// What a poll tells people about a watched interface (alert-types.ts): it went down or came up, its
// utilisation stayed over the device's threshold for the minutes set, its error rate went over the
// threshold; each problem once, and its recovery once after it. Only watched interfaces alert: a
// person marks them, and uplinks with an LLDP neighbour are watched by default (lldp.ts).
//
// What each interface has been told is kept in memory; after a restart an interface found down is
// taken as told (its row says it was down already: no second down alert), so its recovery still comes.
import { iso } from '../../../core/clock.js';
import type { AppContext } from '../../../core/context.js';
import { alertingIn, humanDuration, raiseAlert, type AlertInput } from '../../webhooks/index.js';
import type { DeviceRow, IfRow } from './store.js';
import type { IfPoint } from './types.js';

const UP = 1;
const ADMIN_UP = 1;

interface Told { down: boolean; util: boolean; utilSince: number | null; errors: boolean }

export interface IfChange {
  device: DeviceRow;
  /** The row before this poll, and after it (names, status). */
  before: IfRow;
  after: IfRow;
  point: IfPoint | null;
  utilPct: number | null;
}

export class InterfaceAlerts {
  private readonly told = new Map<number, Told>();
  /** Raised alerts in flight (tests and shutdown wait for them). */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(private readonly app: AppContext) {}

  forget(key: number): void { this.told.delete(key); }

  idle(): Promise<unknown> { return this.pending; }

  /** Judges one interface after one poll; raises what it must. */
  judge(c: IfChange): void {
    const { after: r, device: d } = c;
    if (!r.watched) { this.told.delete(r.id); return; }
    let t = this.told.get(r.id);
    if (!t) {
      // First judgement since start: a watched interface already down was told before the restart.
      const wasDown = c.before.oper !== null && c.before.oper !== UP && c.before.admin === ADMIN_UP;
      t = { down: wasDown, util: false, utilSince: null, errors: false };
      this.told.set(r.id, t);
    }
    const now = c.point?.t ?? this.app.clock.now();
    const name = `${d.name} ${r.name ?? r.descr ?? `ifIndex ${r.if_index}`}`;
    const base = { subject: `snmp-interface/${r.id}`, occurred_at: iso(now), details: details(d, r, c) };

    if (r.oper !== null && r.oper !== UP && r.admin === ADMIN_UP && !t.down) {
      t.down = true;
      this.raise({ ...base, type: 'interface_down', title: `Interface down: ${name}`,
        message: `${name} is ${operWord(r.oper)} (administratively up)${r.neighbour ? `; its LLDP neighbour was ${r.neighbour}` : ''}.` });
    } else if (r.oper === UP && t.down) {
      t.down = false;
      const since = c.before.oper_since;
      this.raise({ ...base, type: 'interface_up', title: `Interface up: ${name}`,
        message: `${name} is up again${since !== null ? ` after ${humanDuration((now - since) / 1000)} down` : ''}.` });
    }

    if (d.util_alert_pct !== null && c.utilPct !== null) {
      const sub = { ...base, subject: `${base.subject}/utilisation` };
      if (c.utilPct >= d.util_alert_pct) {
        t.utilSince ??= now;
        // A poll's rate covers the interval before it: the first poll over the threshold counts its interval.
        const over = now - t.utilSince + d.interval_s * 1000;
        if (!t.util && over >= d.util_alert_minutes * 60_000) {
          t.util = true;
          this.raise({ ...sub, type: 'interface_utilisation', title: `Interface busy: ${name} at ${Math.round(c.utilPct)} %`,
            message: `${name} has carried ${Math.round(c.utilPct)} % of its ${speedWord(r.speed_bps)} or more for `
              + `${humanDuration(over / 1000)} (threshold ${d.util_alert_pct} % for ${d.util_alert_minutes} min).` });
        }
      } else {
        t.utilSince = null;
        if (t.util) {
          t.util = false;
          this.raise({ ...sub, type: 'interface_utilisation_normal', title: `Interface utilisation normal: ${name}`,
            message: `${name} carries ${Math.round(c.utilPct)} % of its ${speedWord(r.speed_bps)}, below ${d.util_alert_pct} %.` });
        }
      }
    }

    const errors = c.point && c.point.in_errors_ps !== null && c.point.out_errors_ps !== null
      ? c.point.in_errors_ps + c.point.out_errors_ps : null;
    if (d.error_alert_ps !== null && errors !== null) {
      const sub = { ...base, subject: `${base.subject}/errors` };
      if (errors > d.error_alert_ps && !t.errors) {
        t.errors = true;
        this.raise({ ...sub, type: 'interface_errors', title: `Interface errors: ${name}`,
          message: `${name} counts ${errors.toFixed(2)} errors a second (in ${c.point!.in_errors_ps!.toFixed(2)}, `
            + `out ${c.point!.out_errors_ps!.toFixed(2)}); threshold ${d.error_alert_ps}.` });
      } else if (errors <= d.error_alert_ps && t.errors) {
        t.errors = false;
        this.raise({ ...sub, type: 'interface_errors_normal', title: `Interface errors normal: ${name}`,
          message: `${name} counts ${errors.toFixed(2)} errors a second, at or below ${d.error_alert_ps}.` });
      }
    }
  }

  private raise(input: AlertInput): void {
    if (!alertingIn(this.app)) return;
    this.pending = Promise.all([this.pending, raiseAlert(this.app, input).catch((err: unknown) => {
      this.app.log.warn('snmp.polling.alert_failed', { type: input.type, subject: input.subject, err: String(err) });
    })]);
  }
}

const OPER = ['', 'up', 'down', 'testing', 'unknown', 'dormant', 'not present', 'lower layer down'];
const operWord = (n: number): string => OPER[n] ?? `status ${n}`;

function speedWord(bps: number | null): string {
  if (!bps) return 'link';
  return bps >= 1e9 ? `${+(bps / 1e9).toFixed(1)} Gbit/s` : bps >= 1e6 ? `${+(bps / 1e6).toFixed(1)} Mbit/s` : `${bps} bit/s`;
}

function details(d: DeviceRow, r: IfRow, c: IfChange): Record<string, unknown> {
  return {
    device: { id: d.id, name: d.name, target: d.target },
    interface: { key: r.id, if_index: r.if_index, name: r.name, alias: r.alias, speed_bps: r.speed_bps, oper: r.oper, admin: r.admin,
      neighbour: r.neighbour },
    rates: c.point ? { in_bps: c.point.in_bps, out_bps: c.point.out_bps, in_errors_ps: c.point.in_errors_ps,
      out_errors_ps: c.point.out_errors_ps } : null,
    util_pct: c.utilPct,
  };
}
