// What the device pages share (devices.js, device.js): the state badges (new, missing, changed, and a
// presence other than normal), where a device is plugged in, and the calls that change a device.
import { relTime } from '../../lib/format.js';
import { html } from '../../lib/html.js';
import { api, request } from '../../lib/api.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';

/** The words and tone of each state and presence (GET /api/v1sion/devices `states`, `presence`). */
export const DEVICE_STATE_BADGES = {
  new: { label: 'New', tone: 'info', hint: 'Never seen before this scan: acknowledge it once you know what it is' },
  missing: { label: 'Missing', tone: 'bad', hint: 'The last scans of its subnet did not find it' },
  changed: { label: 'Changed', tone: 'warn', hint: 'Moved to another switch port or VLAN, or changed address, in the last 24 hours' },
};
export const PRESENCE_LABELS = {
  normal: { label: 'Normal', hint: 'Reported missing once it has been seen regularly and stops answering' },
  expected: { label: 'Expected', hint: 'Always reported when it stops answering' },
  transient: { label: 'Transient', hint: 'Comes and goes (a phone, a laptop): never reported missing' },
};

export function DeviceStates({ d }) {
  const badges = d.states.map((s) => {
    const b = DEVICE_STATE_BADGES[s];
    const since = s === 'missing' && d.missing_since ? ` since ${relTime(d.missing_since)}` : '';
    return html`<${Badge} key=${s} tone=${b.tone} title=${b.hint}>${b.label}${since}<//>`;
  });
  if (d.presence !== 'normal') badges.push(html`<${Badge} key="presence" title=${PRESENCE_LABELS[d.presence].hint}>${PRESENCE_LABELS[d.presence].label}<//>`);
  return badges.length ? html`<span class="chips">${badges}</span>` : html`<span class="muted small">Known</span>`;
}

/** "sw1 port 7 · VLAN 10", or why there is none. */
export function AttachmentText({ a }) {
  if (!a) return html`<span class="muted small" title="No switch's forwarding table placed it on an edge port">Not known</span>`;
  return html`<span><span class="mono">${a.switch}</span> port <span class="mono">${a.port}</span>${a.vlan != null ? html` · VLAN ${a.vlan}` : null}</span>`;
}

/** Acknowledges devices (ids, or 'all_new'); true when done (errors as a toast). */
export async function acknowledge(ids) {
  try {
    const r = await api.post('/api/v1sion/devices/acknowledge', { ids });
    toast.ok(r.acknowledged === 1 ? 'Acknowledged 1 device' : `Acknowledged ${r.acknowledged} devices`);
    return true;
  } catch (e) {
    toast.error(e);
    return false;
  }
}

/** PATCHes a device; resolves with the device as the API answered it, or null (errors as a toast). */
export async function updateDevice(id, body) {
  try {
    return await request('PATCH', `/api/v1sion/devices/${encodeURIComponent(id)}`, { body });
  } catch (e) {
    toast.error(e);
    return null;
  }
}
