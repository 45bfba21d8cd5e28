// Shared by the providers: the facts an alert shows, colours and markers per severity, clipping to a
// service's field limits, and the JSON request most of them send.
import type { Alert } from '../alert.js';
import type { DeliveryContext, OutboundRequest } from './types.js';

export interface Fact { name: string; value: string }

/** Clips to `max` characters (code points), ending with an ellipsis when cut. */
export function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** The facts of an alert, in the order chat cards show them. */
export function facts(alert: Alert, ctx: Pick<DeliveryContext, 'probe'>): Fact[] {
  const out: Fact[] = [];
  const m = alert.monitor;
  if (m) {
    out.push({ name: 'Monitor', value: m.name }, { name: 'Target', value: m.target }, { name: 'Check', value: m.check_type });
    if (m.tags.length) out.push({ name: 'Tags', value: m.tags.join(', ') });
  }
  const d = alert.details;
  if (typeof d.previous_status === 'string' && typeof d.status === 'string') {
    out.push({ name: 'Status', value: `${d.previous_status} → ${d.status}` });
  }
  const opened = alert.incident && typeof alert.incident.opened_at === 'string' ? alert.incident.opened_at : null;
  if (opened) out.push({ name: alert.resolved ? 'Down since' : 'Incident opened', value: opened });
  const deps = d.dependents as { total?: number; down?: number } | undefined;
  if (deps && typeof deps.total === 'number' && deps.total > 0) {
    out.push({ name: 'Dependent monitors', value: `${deps.total}${deps.down ? ` (${deps.down} down)` : ''}; their alerts are held back` });
  }
  if (typeof d.held_back === 'number' && d.held_back > 0)
    out.push({ name: 'Held back', value: `${d.held_back} dependent monitor alert(s)` });
  if (typeof d.valid_to === 'string') out.push({ name: 'Certificate expires', value: d.valid_to });
  out.push({ name: 'Probe', value: ctx.probe.name }, { name: 'Time', value: alert.occurred_at });
  return out;
}

export type Tone = 'critical' | 'error' | 'warning' | 'info' | 'resolved';
export const toneOf = (a: Alert): Tone => (a.resolved ? 'resolved' : a.severity);

/** RGB colours as numbers (Discord) and hex strings (Slack-style attachments). */
export const COLOR: Record<Tone, number> = {
  critical: 0xd32f2f, error: 0xe64a19, warning: 0xf9a825, info: 0x1976d2, resolved: 0x2e7d32,
};
export const hexColor = (t: Tone) => `#${COLOR[t].toString(16).padStart(6, '0')}`;

/** A marker at the start of a chat line. */
export const MARK: Record<Tone, string> = {
  critical: '🔴', error: '🟠', warning: '🟡', info: '🔵', resolved: '✅',
};

export function jsonRequest(url: string, body: unknown, ctx: Pick<DeliveryContext, 'probe'>,
  headers: Record<string, string> = {}): OutboundRequest {
  return {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', 'user-agent': `netprobe/${ctx.probe.version}`, ...headers },
    body: JSON.stringify(body),
  };
}

/** The host without a trailing dot, lower case. */
export const hostOf = (u: URL) => u.hostname.toLowerCase().replace(/\.$/, '');
