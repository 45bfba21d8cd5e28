// The scan form: a subnet, and for SNMP a version with a community (or a v3 user) typed in for this
// scan only, SNMP credentials chosen from the vault, plus whether to try the saved discovery credentials as well. The community and keys stay
// in this form's memory: never in the URL, storage or a result. The API's refusals show as every form
// shows them: 403 (a range not allowed, naming discovery.allowed_ranges) and 429 (two scans running)
// as the form's problem, 400 messages beside their fields. An IPv6 prefix too large to sweep (the
// probe's own /64, offered with one click) says what the scan will do instead before it runs.
import { api } from '../../lib/api.js';
import { useForm } from '../../lib/form.js';
import { html } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { can, useSession } from '../../lib/session.js';
import {
  CREDENTIAL_KINDS, SCAN_SNMP_VERSIONS, SNMP_AUTH_PROTOCOLS as AUTH, SNMP_PRIV_PROTOCOLS as PRIV, SNMP_V3_LEVELS as LEVELS,
} from '../../lib/vocabulary.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { CheckField, CheckGroup, Field, FormError, SelectField } from '../../components/field.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { initialScanForm, ipv6Scan, scanBody, V6_SWEEP_PREFIX } from './model.js';

const kindLabel = (kind) => CREDENTIAL_KINDS.find((k) => k.value === kind)?.label ?? kind;

/** The saved discovery credentials, in the order a scan tries them. */
function SavedCredentials({ form, saved }) {
  if (saved.error) return html`<${ErrorState} error=${saved.error} retry=${saved.reload} />`;
  const list = saved.data?.credentials;
  if (!list) return null;
  const error = form.errorFor('credentials');
  if (!list.length) {
    return html`<p class="field-hint disc-saved-none">No discovery credentials are saved: the scan tries only what is typed in here.</p>`;
  }
  return html`<div class="disc-saved">
    <${CheckField} form=${form} name="use_saved" label=${`Also try the ${list.length === 1 ? 'saved discovery credential' : `${list.length} saved discovery credentials`}`}
      hint="Tried after what is typed above, in this order; their secrets stay in the vault." />
    ${form.values.use_saved ? html`<ol class="disc-saved-list" aria-label="Saved discovery credentials">
      ${list.map((c) => html`<li key=${c.credential_id}>
        <a href=${`/inventory/credentials/${c.short_id ?? c.credential_id}`}>${c.short_id ? html`<span class="disc-sid">${c.short_id}</span> ` : null}${c.name}</a>
        <span class="muted small">${kindLabel(c.kind)}</span></li>`)}
    </ol>` : null}
    ${error ? html`<div class="field-error">${error}</div>` : null}
  </div>`;
}

/**
 * SNMP credentials of the inventory's vault to try in this scan, besides the saved list. Hidden for
 * someone who may not read the inventory (the list answers 403) or when it holds none.
 */
function VaultCredentials({ form, vault }) {
  const options = (vault.data?.items ?? []).filter((c) => String(c.kind ?? '').startsWith('snmp_'))
    .map((c) => ({ value: c.id, label: `${c.short_id ? `${c.short_id} ` : ''}${c.name} (${kindLabel(c.kind)})` }));
  if (!options.length) return null;
  return html`<${CheckGroup} form=${form} name="vault" label="Credentials from the vault" options=${options} columns=${2}
    hint="Tried after what is typed above and before the saved list; their secrets stay in the vault." />`;
}

/** What an IPv6 scan of a prefix too large to sweep does, and what it cannot find. */
export function Ipv6Note({ subnet }) {
  const v6 = ipv6Scan(subnet);
  if (v6?.how !== 'neighbours') return null;
  return html`<div class="alert alert-info disc-v6-note" role="note" id="disc-v6-note"><${Icon} name="info" />
    <div class="alert-body"><strong>A /${v6.prefix} is not swept</strong> (it holds ${v6.prefix <= 64 ? 'billions of billions of' : 'too many'} addresses).
      The scan sends one echo request to every IPv6 node on the link (ff02::1) and reads the probe's neighbour cache: it finds the
      hosts on a link this probe has an address in that answer it or that the cache has just confirmed, in a second or two. Hosts
      that ignore multicast echo and hosts behind a router are not found: scan a /${V6_SWEEP_PREFIX} (256 addresses) or a longer
      prefix to try every address.</div></div>`;
}

/**
 * `running`: the followed scan has not finished (Start waits). `onStarted({job_id, subnet})`.
 * `collapsed`: only the card's title and a button that opens it again (`onToggle`); the form stays
 * mounted, so what was typed is still there.
 */
export function ScanForm(props) {
  // The probe's own subnets are asked first, so the first of them (IPv4 first) can be the form's initial subnet
  // when none was given: nothing changes the field under someone's fingers afterwards.
  const own = useApi('/api/v1sion/scan/local-subnets');
  if (!own.data && !own.error) return html`<${Card} title="Scan a subnet"><${Loading} /><//>`;
  return html`<${ScanFormBody} ...${props} ownSubnets=${own.data?.items ?? []} />`;
}

function ScanFormBody({ initialSubnet, running, onStarted, collapsed = false, onToggle, ownSubnets }) {
  const form = useForm(initialScanForm(initialSubnet || ownSubnets[0]?.subnet || ''));
  const saved = useApi('/api/v1sion/credentials');
  // Only for someone who may read the inventory: nobody else gets a refused request in the console.
  const vault = useApi(can(useSession(), 'brain:read') ? '/api/brain/credentials' : null, { query: { limit: 500 } });
  const onSubmit = form.submit(async (vals) => {
    const savedIds = (saved.data?.credentials ?? []).map((c) => c.credential_id);
    const started = await api.post('/api/v1sion/scan', scanBody(vals, savedIds));
    onStarted(started);
  });
  const v = form.values;
  const v3 = v.snmp_enabled && v.snmp_version === '3';
  const level = v['v3_params.level'];

  const toggle = onToggle ? html`<button type="button" class="btn btn-sm" onClick=${onToggle} aria-expanded=${collapsed ? 'false' : 'true'}
    aria-controls="disc-scan-form">${collapsed ? html`<${Icon} name="plus" size=${15} />New scan` : 'Hide'}</button>` : null;
  return html`<${Card} title="Scan a subnet" class=${`disc-form-card${collapsed ? ' is-collapsed' : ''}`} actions=${toggle}>
    <form onSubmit=${onSubmit} class="disc-form" id="disc-scan-form" hidden=${collapsed}>
      <${FormError} form=${form} />
      <div class="disc-form-top">
        <div class="disc-subnet-box">
        <${Field} form=${form} name="subnet" label="Subnet" required placeholder="192.168.1.0/24" autocapitalize="none" spellcheck=${false}
          autocomplete="off" class="disc-subnet" hint="CIDR notation. Private networks and the probe's own subnets may be scanned." />
        ${ownSubnets.length ? html`<div class="disc-own" role="group" aria-label="The probe's own networks">
          <span class="muted small">This probe's subnets:</span>
          ${ownSubnets.map((o) => html`<button key=${o.subnet} type="button" class="disc-fchip" aria-pressed=${v.subnet === o.subnet ? 'true' : 'false'}
            title=${`${o.address} on ${o.interface}${ipv6Scan(o.subnet)?.how === 'neighbours' ? ': not swept, its neighbours are asked' : ''}`}
            onClick=${() => form.set('subnet', o.subnet)}>${o.subnet}</button>`)}
        </div>` : null}
        <${Ipv6Note} subnet=${v.subnet} />
        </div>
        <${CheckField} form=${form} name="snmp_enabled" label="Identify SNMP agents" class="disc-snmp-switch"
          hint="Vendor, model, OS and neighbours over SNMP. Off: ping, ARP, TCP ports and names only." />
      </div>
      ${v.snmp_enabled ? html`<fieldset class="disc-snmp-box">
        <legend class="sr-only">SNMP</legend>
        <div class="disc-grid">
          <${SelectField} form=${form} name="snmp_version" label="SNMP version" options=${SCAN_SNMP_VERSIONS} />
          ${v3 ? html`
            <${Field} form=${form} name="v3_params.username" label="SNMPv3 user" required autocomplete="off" spellcheck=${false} />
            <${SelectField} form=${form} name="v3_params.level" label="Security level" options=${LEVELS} />
            ${level !== 'noAuthNoPriv' ? html`
              <${SelectField} form=${form} name="v3_params.auth_protocol" label="Authentication" options=${AUTH} class="disc-row-start" />
              <${Field} form=${form} name="v3_params.auth_key" label="Authentication key" type="password" autocomplete="off" required
                class="disc-span-2" />` : null}
            ${level === 'authPriv' ? html`
              <${SelectField} form=${form} name="v3_params.priv_protocol" label="Privacy" options=${PRIV} class="disc-row-start" />
              <${Field} form=${form} name="v3_params.priv_key" label="Privacy key" type="password" autocomplete="off" required
                class="disc-span-2" />` : null}`
          : html`<${Field} form=${form} name="community" label="Community" type="password" autocomplete="off" class="disc-span-2"
              hint="Tried first, for this scan only: never stored." />`}
        </div>
        ${v3 ? html`<p class="field-hint disc-v3-hint">The user and keys are tried first, for this scan only: never stored.</p>` : null}
        <${VaultCredentials} form=${form} vault=${vault} />
        <${SavedCredentials} form=${form} saved=${saved} />
      </fieldset>` : null}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled=${form.busy || running}>
          <${Icon} name="discovery" size=${16} />${form.busy ? 'Starting…' : running ? 'Scanning…' : 'Start scan'}</button>
      </div>
    </form>
  <//>`;
}
