// What an endpoint's page offers beyond its record: "New monitor" for it (the monitor form opened with
// the endpoint's address and name), and its SNMP cards and interface table, read when asked (reading
// reaches out to the device through its stored credential; the SNMP module is loaded then, not before).
import { html, useEffect, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { qs } from '../../lib/api.js';
import { can, useSession } from '../../lib/session.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';

/** The address a monitor of the endpoint checks: its first IP address, else its host name. */
export const monitorTarget = (rec) => (Array.isArray(rec.ip_addresses) && rec.ip_addresses[0]) || rec.hostname || '';

/**
 * /monitors/new with the endpoint filled in: `check_type` (ping), `target`, `name`, and `endpoint` (its
 * short ID, for the form to link the new monitor to it).
 */
export function newMonitorHref(rec) {
  return `/monitors/new${qs({ check_type: 'ping', target: monitorTarget(rec), name: rec.name, endpoint: rec.short_id })}`;
}

export function NewMonitorLink({ rec }) {
  const s = useSession();
  if (!can(s, 'monitors:write') || !monitorTarget(rec)) return null;
  return html`<a class="btn" href=${newMonitorHref(rec)}><${Icon} name="plus" size=${16} />New monitor</a>`;
}

function Cards({ device }) {
  const [mod, setMod] = useState(null);
  const [failed, setFailed] = useState(null);
  const cards = useApi(`/api/snmp/device-cards/${encodeURIComponent(device)}`);
  useEffect(() => {
    import('../snmp/devices.js').then(setMod, (e) => setFailed({ detail: `The SNMP section could not be loaded: ${e.message}` }));
  }, []);
  if (failed) return html`<${ErrorState} error=${failed} />`;
  if (cards.error) return html`<${ErrorState} error=${cards.error} retry=${cards.reload} />`;
  if (!cards.data || !mod) return html`<${Card} title="SNMP"><${Loading} label="Reading the device…" /><//>`;
  return html`<${mod.DeviceCards} data=${cards.data} reload=${cards.reload} loading=${cards.loading} />`;
}

/** The endpoint's SNMP cards and interfaces, read on request. */
export function EndpointSnmp({ rec }) {
  const s = useSession();
  const [open, setOpen] = useState(false);
  if (!can(s, 'snmp:read')) return null;
  if (open) return html`<${Cards} device=${rec.short_id} />`;
  const ready = !!rec.credential_id && !!monitorTarget(rec);
  return html`<${Card} title="SNMP">
    ${ready ? html`<p class="muted">Its cards (system, resources, vendor figures) and interface table, read from the device now
        through its management credential.</p>
        <div class="inv-actions">
          <button type="button" class="btn" onClick=${() => setOpen(true)}><${Icon} name="snmp" size=${16} />Read SNMP cards</button>
          <a class="btn btn-ghost" href=${`/snmp/devices?device=${encodeURIComponent(rec.short_id)}`}>Open in SNMP</a>
        </div>`
      : html`<p class="muted">${monitorTarget(rec) ? 'Give it a management credential (an SNMP one) to read its SNMP cards and interfaces.'
        : 'Give it an IP address and an SNMP management credential to read its SNMP cards and interfaces.'}</p>`}
  <//>`;
}
