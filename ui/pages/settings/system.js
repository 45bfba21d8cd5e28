// System: the probe's health (GET /api/system/status every 5 s: CPU, memory, disk, temperature, uptime as
// small gauges, load, Raspberry Pi throttling) and its host facts (GET /api/host/info, read again on
// request). Every role may read both.
import { duration } from '../../lib/format.js';
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { toast } from '../../lib/toast.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { Table } from '../../components/table.js';
import { bytes, Facts, Gauge, toneOf, when } from './parts.js';

const THROTTLE_FLAGS = [
  ['under_voltage', 'Under-voltage'], ['frequency_capped', 'Frequency capped'], ['throttled', 'Throttled'],
  ['soft_temperature_limit', 'Soft temperature limit'],
];

function Health({ s }) {
  const hottest = s.temperatures.reduce((a, t) => (a === null || t.celsius > a.celsius ? t : a), null);
  const cpu = s.cpu.usage_pct;
  return html`<div class="gauges">
    <${Gauge} label="CPU" value=${cpu} figure=${cpu === null ? 'Measuring' : `${cpu.toFixed(0)} %`}
      sub=${`${s.cpu.cores} cores · load ${s.cpu.load['1m'].toFixed(2)}`} />
    <${Gauge} label="Memory" value=${s.memory.used_pct} figure=${`${s.memory.used_pct.toFixed(0)} %`}
      sub=${`${bytes(s.memory.available_bytes)} free of ${bytes(s.memory.total_bytes)}`} />
    ${s.disk ? html`<${Gauge} label="Disk" value=${s.disk.used_pct} figure=${`${s.disk.used_pct.toFixed(0)} %`}
        sub=${`${bytes(s.disk.available_bytes)} free of ${bytes(s.disk.total_bytes)}`} />`
      : html`<${Gauge} label="Disk" value=${null} figure="Unknown" sub="The data directory could not be measured" />`}
    ${hottest ? html`<${Gauge} label="Temperature" value=${hottest.celsius} tone=${toneOf(hottest.celsius, 70, 80)}
        figure=${`${hottest.celsius.toFixed(1)} °C`} sub=${hottest.type} />`
      : html`<${Gauge} label="Temperature" value=${null} figure="No sensor" sub="This host reports no thermal zones" />`}
    <${Gauge} label="Uptime" value=${null} figure=${duration(s.uptime.host)} sub=${`Service: ${duration(s.uptime.service)}`} />
  </div>`;
}

function Throttling({ t }) {
  if (!t) return null;
  const now = THROTTLE_FLAGS.filter(([k]) => t[k]);
  const since = THROTTLE_FLAGS.filter(([k]) => t[`${k}_occurred`] && !t[k]);
  return html`<div style="margin-top:14px">
    <strong>Power and throttling</strong>
    <div class="chips" style="margin-top:6px">
      ${now.length || since.length ? null : html`<${Badge} tone="ok">No throttling since boot<//>`}
      ${now.map(([k, l]) => html`<${Badge} key=${k} tone="bad">${l} now<//>`)}
      ${since.map(([k, l]) => html`<${Badge} key=${k} tone="warn">${l} since boot<//>`)}
    </div>
    <p class="muted small">From vcgencmd (${t.raw}), read ${when(t.checked_at)}.</p>
  </div>`;
}

const IF_COLUMNS = [
  { key: 'name', label: 'Interface', render: (i) => html`<span class="cell-title mono">${i.name}</span>${i.internal ? html` <${Badge}>loopback<//>` : null}` },
  { key: 'mac', label: 'MAC', class: 'mono', render: (i) => i.mac ?? '—' },
  { key: 'addresses', label: 'Addresses', render: (i) => html`<div class="mono small">${i.addresses.map((a) => html`<div key=${a.address}>${a.address}/${a.prefix}</div>`)}</div>` },
];

function HostInfo() {
  const [refresh, setRefresh] = useState(0);
  const host = useApi('/api/host/info', { query: { refresh: refresh ? 'true' : undefined } });
  const h = host.data;
  const again = () => {
    if (refresh) host.reload(); else setRefresh(1);
    toast.info('Reading the host facts again');
  };
  const gw = (g) => (g ? html`<span class="mono">${g.address}</span> <span class="muted">(${g.interface})</span>` : '—');
  return html`<${Card} title="Host" actions=${html`<button type="button" class="btn btn-sm" onClick=${again} disabled=${host.loading}>
      <${Icon} name="refresh" size=${15} />Read again</button>`}>
    ${host.error ? html`<${ErrorState} error=${host.error} retry=${host.reload} />`
      : !h ? html`<${Loading} />`
        : html`<${Facts} items=${[
          ['Host name', html`<span class="mono">${h.hostname}</span>`],
          ['Operating system', h.os.pretty_name || h.os.name],
          ['Kernel', `${h.kernel.release} (${h.kernel.architecture})`],
          ['Board', h.board?.model ? `${h.board.model}${h.board.revision ? ` (revision ${h.board.revision})` : ''}` : undefined],
          ['Serial number', h.board?.serial ? html`<span class="mono">${h.board.serial}</span>` : undefined],
          ['CPU', `${h.cpu.model} · ${h.cpu.cores} cores · ${h.cpu.architecture}`],
          ['Memory', bytes(h.memory_total_bytes)],
          ['Time zone', h.time.timezone],
          ['Clock synchronised', h.time.synchronized === null ? 'Unknown' : h.time.synchronized ? 'Yes' : 'No'],
          ['Default gateway (IPv4)', gw(h.default_gateway.ipv4)],
          ['Default gateway (IPv6)', gw(h.default_gateway.ipv6)],
          ['DNS servers', h.dns_servers.length ? html`<span class="mono">${h.dns_servers.join(', ')}</span>` : 'None'],
          ['Read', when(h.collected_at)],
        ]} />`}
    ${h ? html`<div style="margin:16px -18px -18px; border-top:1px solid var(--border)">
      <${Table} columns=${IF_COLUMNS} rows=${h.interfaces} rowKey="name" caption="Network interfaces" /></div>` : null}
  <//>`;
}

export default function SystemSection() {
  const st = useApi('/api/system/status', { every: 5 });
  const s = st.data;
  return html`<div class="settings-stack">
    <${Card} title="Health" actions=${s ? html`<span class="muted small">Updated ${when(s.time)}</span>` : null}>
      ${st.error && !s ? html`<${ErrorState} error=${st.error} retry=${st.reload} />`
        : !s ? html`<${Loading} />`
          : html`<${Health} s=${s} />
            <${Facts} items=${[
              ['Load (1, 5, 15 min)', `${s.cpu.load['1m'].toFixed(2)}, ${s.cpu.load['5m'].toFixed(2)}, ${s.cpu.load['15m'].toFixed(2)}`],
              ['The service', `CPU ${s.cpu.process_pct === null ? '—' : `${s.cpu.process_pct.toFixed(1)} %`} of a core · ${bytes(s.memory.process_rss_bytes)} resident`],
              ['Data directory', s.disk ? html`<span class="mono">${s.disk.path}</span>` : '—'],
              ...(s.temperatures.length > 1 ? [['Thermal zones', s.temperatures.map((t) => `${t.type} ${t.celsius.toFixed(1)} °C`).join(', ')]] : []),
            ]} class="facts-below" />
            <${Throttling} t=${s.throttling} />`}
    <//>
    <${HostInfo} />
  </div>`;
}
