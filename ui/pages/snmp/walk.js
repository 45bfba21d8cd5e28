// The Walk tab: walk an agent's subtrees (v1, v2c, v3) with a stored SNMP credential of the inventory
// (its secrets stay in the vault and are never sent to the browser) or a community or keys typed in for
// this walk only, and read the values as the OID store names them.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useEffect, useState } from '../../lib/html.js';
import { SNMP_AUTH_PROTOCOLS as AUTH, SNMP_PRIV_PROTOCOLS as PRIV, SNMP_V3_LEVELS as LEVELS, SNMP_VERSIONS as VERSIONS } from '../../lib/vocabulary.js';
import { Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { Loading } from '../../components/empty.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { kindLabel, useSnmpCredentials } from './templates.js';
import { WalkResult } from './varbinds.js';

const SOURCES = [{ value: 'inline', label: 'Typed in for this walk' }, { value: 'stored', label: 'A stored credential' }];

/** The request body from the form; v3 keys only for the security level that uses them. */
function walkBody(v) {
  const body = {
    target: v.target.trim(),
    oids: v.oids.split(/[\s,]+/).filter(Boolean),
  };
  if (v.port.trim()) body.port = Number(v.port);
  // Numbers as typed: text that is none goes as it is, so the API names the field.
  for (const k of ['timeout', 'retries', 'max_repetitions', 'max_varbinds']) {
    const t = v[k].trim();
    if (t) body[k] = Number.isFinite(Number(t)) ? Number(t) : t;
  }
  // A stored credential's kind sets the version; its secrets are read by the probe from the vault.
  if (v.auth === 'stored') return { ...body, credential_id: v.credential_id };
  body.version = v.version;
  if (v.version === 'v3') {
    body.v3 = { username: v['v3.username'].trim(), level: v['v3.level'] };
    if (v['v3.level'] !== 'noAuthNoPriv') Object.assign(body.v3, { auth_protocol: v['v3.auth_protocol'], auth_key: v['v3.auth_key'] });
    if (v['v3.level'] === 'authPriv') Object.assign(body.v3, { priv_protocol: v['v3.priv_protocol'], priv_key: v['v3.priv_key'] });
  } else {
    body.community = v.community;
  }
  return body;
}

export default function WalkSection() {
  const creds = useSnmpCredentials();
  const form = useForm({
    auth: 'inline', credential_id: '', target: '', port: '', version: 'v2c', community: '', oids: 'system',
    timeout: '', retries: '', max_repetitions: '', max_varbinds: '',
    'v3.username': '', 'v3.level': 'authPriv', 'v3.auth_protocol': 'sha', 'v3.auth_key': '', 'v3.priv_protocol': 'aes', 'v3.priv_key': '',
  });
  const [result, setResult] = useState(null);
  const v = form.values;
  const stored = creds.items ?? [];
  // Choosing "a stored credential" picks the first one until another is chosen.
  useEffect(() => {
    if (v.auth === 'stored' && stored.length && !v.credential_id) form.set('credential_id', stored[0].id);
  }, [v.auth, creds.items]);
  const credOptions = stored.map((c) => ({ value: c.id, label: `${c.short_id} · ${c.name} (${kindLabel(c.kind)}${c.port ? `, port ${c.port}` : ''})` }));
  const onSubmit = form.submit(async (vals) => {
    setResult(null);
    setResult(await api.post('/api/snmp/walk', walkBody(vals)));
  });

  return html`<${Card} title="Walk">
    <form onSubmit=${onSubmit}>
      <${FormError} form=${form} />
      <div class="grid-2">
        <${Field} form=${form} name="target" label="Agent" required placeholder="192.0.2.10 or switch1" autocapitalize="none" spellcheck="false" />
        <div class="grid-2">
          ${v.auth === 'inline' ? html`<${SelectField} form=${form} name="version" label="Version" options=${VERSIONS} />` : null}
          <${Field} form=${form} name="port" label="UDP port" type="number" min="1" max="65535" placeholder=${v.auth === 'stored' ? 'From the credential, else 161' : '161'} inputmode="numeric" />
        </div>
      </div>
      <div class="grid-2">
        <${SelectField} form=${form} name="auth" label="Credentials" options=${SOURCES}
          hint=${v.auth === 'stored' ? 'Its kind sets the version; the vault keeps its secrets, and the walk is recorded in the audit log.' : 'Used for this walk only; never stored or logged.'} />
        ${v.auth !== 'stored' ? null
          : creds.error ? html`<p class="muted">The stored credentials could not be loaded: ${creds.error.detail}</p>`
            : !creds.items ? html`<${Loading} label="Loading the SNMP credentials…" />`
              : stored.length ? html`<${SelectField} form=${form} name="credential_id" label="Stored credential" options=${credOptions} required />`
                : html`<p class="muted">No SNMP credentials are stored yet. <a href="/inventory/credentials/new">Add one in the inventory</a>.</p>`}
      </div>
      ${v.auth === 'stored' ? null : v.version === 'v3' ? html`
        <div class="grid-2">
          <${Field} form=${form} name="v3.username" label="User" required autocomplete="off" />
          <${SelectField} form=${form} name="v3.level" label="Security level" options=${LEVELS} />
        </div>
        ${v['v3.level'] !== 'noAuthNoPriv' ? html`<div class="grid-2">
          <${SelectField} form=${form} name="v3.auth_protocol" label="Authentication" options=${AUTH} />
          <${Field} form=${form} name="v3.auth_key" label="Authentication key" type="password" autocomplete="off" required />
        </div>` : null}
        ${v['v3.level'] === 'authPriv' ? html`<div class="grid-2">
          <${SelectField} form=${form} name="v3.priv_protocol" label="Privacy" options=${PRIV} />
          <${Field} form=${form} name="v3.priv_key" label="Privacy key" type="password" autocomplete="off" required />
        </div>` : null}`
      : html`<${Field} form=${form} name="community" label="Community" type="password" autocomplete="off" required />`}
      <${TextArea} form=${form} name="oids" label="Subtrees" rows=${2} spellcheck="false"
        hint="Numeric OIDs or names from the OID store (system, ifTable, IF-MIB::ifDescr), separated by spaces or lines." />
      <div class="grid-2">
        <${Field} form=${form} name="timeout" label="Timeout per answer (seconds)" type="number" min="0.1" max="60" step="0.1" placeholder="2" />
        <${Field} form=${form} name="retries" label="Retries" type="number" min="0" max="5" inputmode="numeric" placeholder="1" />
        <${Field} form=${form} name="max_repetitions" label="GETBULK repetitions" type="number" min="1" max="200" inputmode="numeric" placeholder="20" />
        <${Field} form=${form} name="max_varbinds" label="Most values" type="number" min="1" max="100000" inputmode="numeric" placeholder="10000" />
      </div>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled=${form.busy}><${Icon} name="search" size=${16} />${form.busy ? 'Walking…' : 'Walk'}</button>
      </div>
    </form>
    ${result ? html`<${WalkResult} result=${result} />` : null}
  <//>`;
}
