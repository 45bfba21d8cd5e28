// Status badges for the topology canvas, polled every few seconds by every open map: the monitors'
// ids and statuses (and per address the worst status), never names, targets, tags or history, since
// the endpoints need no sign-in. Each distinct answer is made at most once a second and served with
// an ETag, so many browsers polling cost one serialisation a second, and a 304 when nothing changed.
import type { AppContext } from '../../../core/context.js';
import { CachedJson } from '../../../core/http/cached-json.js';
import { monitorsServiceOf } from '../../monitors/index.js';

const FRESH_MS = 1000;
// Made every second: fast compression (badges compress well at any level).
/** Distinct by-ip questions kept for their second (browsers ask for the addresses of their own map). */
const MAX_KEYS = 64;

interface Cached { at: number; body: CachedJson }

export class MonitorStatusService {
  private all: Cached | null = null;
  private readonly byIp = new Map<string, Cached>();

  constructor(private readonly app: AppContext) {}

  /** `{monitors: [{id, status}]}`, at most a second old. */
  status(): CachedJson {
    const now = this.app.clock.now();
    if (!this.all || now - this.all.at >= FRESH_MS) {
      this.all = { at: now, body: new CachedJson({ monitors: monitorsServiceOf(this.app).badges() }, 1) };
    }
    return this.all.body;
  }

  /** `{addresses: [{ip, status, monitors}]}` for canonical, distinct addresses, at most a second old. */
  byAddress(ips: readonly string[]): CachedJson {
    const now = this.app.clock.now();
    const key = ips.join(',');
    const hit = this.byIp.get(key);
    if (hit && now - hit.at < FRESH_MS) return hit.body;
    if (this.byIp.size >= MAX_KEYS) {
      for (const [k, v] of this.byIp) if (now - v.at >= FRESH_MS) this.byIp.delete(k);
      if (this.byIp.size >= MAX_KEYS) this.byIp.delete(this.byIp.keys().next().value!);
    }
    const body = new CachedJson({ addresses: monitorsServiceOf(this.app).statusByAddress(ips) }, 1);
    this.byIp.set(key, { at: now, body });
    return body;
  }
}
