// Create and edit a monitor: the check type first, then its target and settings (drawn from the probe's
// description of the type, GET /api/monitors/check-types), the schedule and alert thresholds, tags and
// parent monitors (alert dependencies). The API's messages appear beside the fields they name
// (settings.auth.password, parents.0, …).
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { duration } from '../../lib/format.js';
import { html, useEffect, useRef } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { navigate } from '../../lib/router.js';
import { noteDroppedSecrets } from '../../lib/secrets.js';
import { toast } from '../../lib/toast.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { Field, FormError } from '../../components/field.js';
import { ChipPicker, Segmented, TagInput } from '../../components/field-extra.js';
import { Card, Page } from '../../components/page.js';
import { SchemaFields } from '../../components/schema-fields.js';
import { useCheckTypes } from './check-types.js';
import { applies, checkType, settingsForm, toBody, toForm } from './model.js';
import './section.js';

/**
 * A new monitor offered from elsewhere (an endpoint's "New monitor"): `check_type`, `target` and `name`
 * prefill the form, `endpoint` (its short ID) is linked to the monitor once it is made (monitored_by).
 */
function presetOf(query, types) {
  const q = query ?? {};
  const preset = {};
  if (types.some((t) => t.type === q.check_type)) preset.check_type = q.check_type;
  if (typeof q.target === 'string') preset.target = q.target.slice(0, 500);
  if (typeof q.name === 'string') preset.name = q.name.slice(0, 200);
  const endpoint = typeof q.endpoint === 'string' && /^EP-\d{1,12}$/.test(q.endpoint) ? q.endpoint : null;
  return { preset, endpoint };
}

function MonitorForm({ stored, types, monitors, tags, query }) {
  const { preset, endpoint } = stored ? { preset: {}, endpoint: null } : presetOf(query, types);
  const form = useForm({ ...toForm(stored, types, preset.check_type), ...preset });
  const v = form.values;
  const type = checkType(types, v.check_type);
  const back = stored ? `/monitors/${stored.id}` : '/monitors';

  // Another type brings its own settings: as last left in this form, else stored or the type's defaults.
  const left = useRef({});
  const typeForm = { ...form, set: (_name, next) => {
    if (next === v.check_type) return;
    left.current[v.check_type] = Object.fromEntries(Object.entries(v).filter(([k]) => k.startsWith('settings.')));
    const values = left.current[next] ?? settingsForm(checkType(types, next), stored);
    form.set('check_type', next);
    for (const [k, val] of Object.entries(values)) form.set(k, val);
  } };

  useEffect(() => {
    if (form.error) document.querySelector('main [aria-invalid="true"], main .alert-error')?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [form.error]);

  const onSubmit = form.submit(async (vals) => {
    const body = toBody(vals, stored, types);
    if (stored && !Object.keys(body).length) { toast.info('Nothing changed'); navigate(back); return; }
    const saved = stored ? await api.put(`/api/monitors/${stored.id}`, body) : await api.post('/api/monitors', body);
    if (endpoint) {
      // The monitor exists either way; a link that cannot be made is said, not hidden.
      await api.post('/api/brain/links', { from: { type: 'endpoints', id: endpoint }, to: { type: 'monitors', id: saved.id }, relation: 'monitored_by' })
        .catch((e) => toast.error(`Created ${saved.name}, but it could not be linked to ${endpoint}: ${e.message}`));
    }
    toast.ok(`${stored ? 'Saved' : 'Created'} ${saved.name}`);
    noteDroppedSecrets(saved);
    navigate(`/monitors/${saved.id}`);
  });

  const parentOptions = monitors.filter((m) => m.id !== stored?.id).map((m) => ({ value: m.id, label: m.name }));
  const interval = Number(v.interval);

  return html`<form onSubmit=${onSubmit} class="mon-form" novalidate>
    <${FormError} form=${form} />
    ${endpoint ? html`<p class="field-hint">Linked to endpoint <a href=${`/inventory/endpoints/${endpoint}`}>${endpoint}</a> once it is created.</p>` : null}
    <${Card} title="What to check">
      <${Segmented} form=${typeForm} name="check_type" label="Check type"
        options=${types.map((t) => ({ value: t.type, label: t.label, hint: t.hint, icon: t.icon }))} />
      <div class="grid-2">
        <${Field} form=${form} name="name" label="Name" required placeholder="Intranet portal" />
        <${Field} form=${form} name="target" label=${type.target.title} required placeholder=${type.target.placeholder}
          hint=${type.target.description} spellcheck="false" autocapitalize="none" />
      </div>
      <${SchemaFields} key=${type.type} form=${form} schema=${type.settings} prefix="settings." stored=${stored?.check_type === type.type ? stored.settings : undefined} />
    <//>
    <${Card} title="Schedule and alerts">
      <div class="grid-3">
        <${Field} form=${form} name="interval" label="Check every (seconds)" type="number" min="5" max="86400" inputmode="numeric" required
          hint=${Number.isFinite(interval) && interval >= 5 ? `Every ${duration(interval)}.` : 'At least 5 seconds.'} />
        <${Field} form=${form} name="timeout" label="Timeout (seconds)" type="number" min="1" max="300" inputmode="numeric"
          placeholder=${String(Math.max(1, Math.min(10, (Number.isFinite(interval) ? interval : 60) - 1)))} hint="Below the interval." />
        <${Field} form=${form} name="failure_threshold" label="Failures before down" type="number" min="1" max="20" inputmode="numeric"
          hint="Failed checks in a row before the monitor is down and an incident opens; until then it is failing." />
      </div>
      <div class="grid-3">
        <${Field} form=${form} name="degraded_ms" label="Degraded above (ms)" type="number" min="1" max="600000" inputmode="numeric"
          hint="Optional: slower answers count as degraded." />
        ${applies(type, 'max_loss_pct') ? html`<${Field} form=${form} name="max_loss_pct" label="Degraded above loss (%)" type="number" min="0" max="100" step="any"
          hint="Optional; without it any loss is degraded." />` : null}
      </div>
    <//>
    <${Card} title="Organise">
      <div class="grid-2">
        <${TagInput} form=${form} name="tags" label="Tags" suggestions=${tags} hint="Enter or comma adds a tag." />
        <${ChipPicker} form=${form} name="parents" label="Parent monitors" options=${parentOptions} placeholder="Add a parent…" empty="No parents"
          hint="While a parent is down, this monitor's down alerts are held back and summarised in the parent's alert." />
      </div>
    <//>
    <div class="form-actions form-actions-bar">
      <a class="btn" href=${back}>Cancel</a>
      <button type="submit" class="btn btn-primary" disabled=${form.busy}>${form.busy ? 'Saving…' : stored ? 'Save changes' : 'Create monitor'}</button>
    </div>
  </form>`;
}

export default function MonitorFormPage({ params, query }) {
  const editing = params.id !== undefined;
  const monitor = useApi(editing ? `/api/monitors/${encodeURIComponent(params.id)}` : null);
  const monitors = useApi('/api/monitors');
  const tags = useApi('/api/monitors/tags');
  const types = useCheckTypes();
  const failed = monitor.error ?? monitors.error ?? types.error;
  const ready = (!editing || monitor.data) && monitors.data && types.data;
  const title = editing ? (monitor.data ? `Edit ${monitor.data.name}` : 'Edit monitor') : 'New monitor';
  return html`<${Page} title=${title} subtitle=${editing ? 'Changes to what is checked take effect at once' : 'It is checked as soon as it is saved'}>
    ${failed ? html`<${ErrorState} error=${failed} retry=${() => { monitor.reload(); monitors.reload(); types.reload(); }} />`
      : !ready ? html`<${Card}><${Loading} /><//>`
        : html`<${MonitorForm} key=${monitor.data?.id ?? 'new'} stored=${monitor.data ?? null} types=${types.data} monitors=${monitors.data.monitors} tags=${tags.data ?? []} query=${query} />`}
  <//>`;
}
