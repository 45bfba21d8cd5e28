// Controller: pairing with a controller over MQTT ("hivemind"). The connection's state
// (GET /api/hivemind/status every 10 s), and for administrators pairing by pasting the code the
// controller made (POST /api/hivemind/pair) and unpairing (POST /api/hivemind/unpair; when the broker
// cannot be reached, asked again with force). The secret is never shown. docs/hivemind.md.
import { api } from '../../lib/api.js';
import { confirm } from '../../lib/confirm.js';
import { count } from '../../lib/format.js';
import { useForm } from '../../lib/form.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { isAdmin, useSession } from '../../lib/session.js';
import { toast } from '../../lib/toast.js';
import { HIVEMIND_STATES } from '../../lib/vocabulary.js';
import { Badge } from '../../components/badge.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { FormError, TextArea } from '../../components/field.js';
import { Card } from '../../components/page.js';
import { AdminNote, Facts, when } from './parts.js';

function PairForm({ paired, onPaired }) {
  const form = useForm({ code: '' });
  const onSubmit = form.submit(async (v) => {
    const st = await api.post('/api/hivemind/pair', { code: v.code.trim() });
    form.reset({ code: '' });
    toast.ok(`Paired with ${st.controller_url} as ${st.probe_id}`);
    onPaired();
  });
  return html`<form onSubmit=${onSubmit}>
    <${FormError} form=${form} />
    <${TextArea} form=${form} name="code" label="Pairing code" rows=${4} required autocapitalize="none" spellcheck="false"
      hint=${paired ? 'A new code replaces the pairing once the new connection works.' : 'The code the controller made for this probe (about 1,100 characters).'} />
    <div class="form-actions"><button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Connecting…' : paired ? 'Pair again' : 'Pair'}</button></div>
  </form>`;
}

export default function ControllerSection() {
  const s = useSession();
  const admin = isAdmin(s);
  const st = useApi('/api/hivemind/status', { every: 10 });
  const h = st.data;
  const unpair = async () => {
    if (!(await confirm({ title: 'Unpair from the controller?', danger: true, confirmLabel: 'Unpair',
      message: 'The probe clears what it published on the broker, disconnects and forgets its secret. Pair again with a new code.' }))) return;
    try {
      try {
        await api.post('/api/hivemind/unpair', {});
      } catch (e) {
        if (e?.code !== 'broker_unreachable') throw e;
        if (!(await confirm({ title: 'Forget the pairing anyway?', danger: true, confirmLabel: 'Forget it',
          message: `${e.detail} The controller keeps the probe's last messages until someone clears them there.` }))) return;
        await api.post('/api/hivemind/unpair', { force: true });
      }
      toast.ok('Unpaired');
      st.reload();
    } catch (e) { toast.error(e); }
  };
  const state = h ? HIVEMIND_STATES[h.state] ?? { label: h.state, tone: 'neutral' } : null;
  return html`<div class="settings-stack">
    <${Card} title="Controller" actions=${admin && h?.paired ? html`<button type="button" class="btn btn-sm" onClick=${unpair}>Unpair</button>` : null}>
      ${st.error && !h ? html`<${ErrorState} error=${st.error} retry=${st.reload} />`
        : !h ? html`<${Loading} />`
          : !h.paired ? html`<p class="muted" style="margin:0">Not paired. A controller collects the monitors and scans of many probes over MQTT;
              the probe dials out, so it works behind NAT.</p>`
            : html`<${Facts} items=${[
              ['Connection', html`<${Badge} tone=${state.tone}>${state.label}<//>${h.connected_since ? html` <span class="muted">since ${when(h.connected_since)}</span>` : null}`],
              ['Broker', html`<span class="mono small">${h.controller_url}</span>`],
              ['Probe ID', html`<span class="mono">${h.probe_id}</span>`],
              ['TLS', h.tls ? html`Pinned CA <span class="mono small fingerprint">${h.ca_sha256}</span>` : html`<${Badge} tone="warn">No TLS (lab broker)<//>`],
              ['Paired', when(h.paired_at)],
              ['Events waiting', `${count(h.queued)}${h.dropped ? ` (${count(h.dropped)} dropped while offline)` : ''}`],
              ['Last error', h.last_error ? html`<span class="field-error">${h.last_error}</span> <span class="muted small">${when(h.last_error_at)}</span>` : undefined],
              ['Next attempt', h.next_attempt_at ? when(h.next_attempt_at) : undefined],
            ]} />`}
    <//>
    ${admin ? html`<${Card} title=${h?.paired ? 'Pair with another code' : 'Pair with a controller'}>
      <${PairForm} paired=${!!h?.paired} onPaired=${st.reload} /><//>` : html`<${AdminNote} />`}
  </div>`;
}
