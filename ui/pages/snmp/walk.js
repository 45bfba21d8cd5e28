// The Walk tab: walk an agent's subtrees (v1, v2c, v3) with a community or keys typed in for this walk
// only, and read the values as the OID store names them.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html, useState } from '../../lib/html.js';
import { SNMP_AUTH_PROTOCOLS as AUTH, SNMP_PRIV_PROTOCOLS as PRIV, SNMP_V3_LEVELS as LEVELS, SNMP_VERSIONS as VERSIONS } from '../../lib/vocabulary.js';
import { Field, FormError, SelectField, TextArea } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { WalkResult } from './varbinds.js';

/** The request body from the form; v3 keys only for the security level that uses them. */
function walkBody(v) {
  const body = {
    target: v.target.trim(),
    version: v.version,
    oids: v.oids.split(/[\s,]+/).filter(Boolean),
  };
  if (v.port.trim()) body.port = Number(v.port);
  if (v.timeout.trim()) body.timeout = Number(v.timeout);
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
  const form = useForm({
    target: '', port: '', version: 'v2c', community: '', oids: 'system', timeout: '',
    'v3.username': '', 'v3.level': 'authPriv', 'v3.auth_protocol': 'sha', 'v3.auth_key': '', 'v3.priv_protocol': 'aes', 'v3.priv_key': '',
  });
  const [result, setResult] = useState(null);
  const v = form.values;
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
          <${SelectField} form=${form} name="version" label="Version" options=${VERSIONS} />
          <${Field} form=${form} name="port" label="UDP port" type="number" min="1" max="65535" placeholder="161" inputmode="numeric" />
        </div>
      </div>
      ${v.version === 'v3' ? html`
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
      : html`<${Field} form=${form} name="community" label="Community" type="password" autocomplete="off" required
          hint="Used for this walk only; never stored or logged." />`}
      <div class="grid-2">
        <${TextArea} form=${form} name="oids" label="Subtrees" rows=${2} spellcheck="false"
          hint="Numeric OIDs or names from the OID store (system, ifTable, IF-MIB::ifDescr), separated by spaces or lines." />
        <${Field} form=${form} name="timeout" label="Timeout per answer (seconds)" type="number" min="0.1" max="60" step="0.1" placeholder="2" />
      </div>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled=${form.busy}><${Icon} name="search" size=${16} />${form.busy ? 'Walking…' : 'Walk'}</button>
      </div>
    </form>
    ${result ? html`<${WalkResult} result=${result} />` : null}
  <//>`;
}
