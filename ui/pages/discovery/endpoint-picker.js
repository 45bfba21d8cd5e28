// Picks one inventory endpoint (GET /api/v1sion/brain/endpoints: name, short ID, host name, the start of
// an address or a MAC in any spelling): a search box and the matches as radio buttons, with records
// suggested first (a device's possible matches) and, when asked, a "none" choice. Used by the route
// form, the import of an offered route and "Link to…" of the inventory comparison.
import { html, useRef, useState } from '../../lib/html.js';
import { useApi, useDebounced } from '../../lib/hooks.js';
import { SearchBox } from '../../components/controls.js';
import { ErrorState } from '../../components/empty.js';
import { Addresses } from './section.js';

const SHOWN = 12;
let seq = 0;

/**
 * value: the chosen record {type, id, short_id, name} or null. `suggested`: records offered first (they may
 * be assets), each with an optional `note` ("matched on the serial"). `noneLabel`: offer "none" (null).
 * `initialQuery`: what the search starts with. `error`: the API's message for this choice.
 */
export function EndpointPicker({ value, onChange, label, hint, error, suggested = [], noneLabel, initialQuery = '', sessionId }) {
  const name = useRef(`disc-pick-${++seq}`).current;
  const [q, setQ] = useState(initialQuery);
  const dq = useDebounced(q.trim(), 250);
  const list = useApi('/api/v1sion/brain/endpoints', { query: { q: dq, limit: SHOWN, session_id: sessionId } });
  const found = (list.data?.items ?? []).map((e) => ({ type: 'endpoints', ...e }));
  const seen = new Set(suggested.map((s) => s.id));
  const options = [...suggested, ...found.filter((e) => !seen.has(e.id))];
  // The chosen record stays on the list while the search moves on.
  if (value && !options.some((o) => o.id === value.id)) options.unshift(value);
  const more = (list.data?.total ?? 0) - found.length;
  const hintId = `${name}-hint`, errId = `${name}-err`;
  return html`<fieldset class="field field-group disc-picker" aria-invalid=${error ? 'true' : undefined}
    aria-describedby=${[error && errId, hint && hintId].filter(Boolean).join(' ') || undefined}>
    <legend>${label}</legend>
    <${SearchBox} value=${q} onInput=${setQ} label=${`Search ${label.toLowerCase()}`} placeholder="Name, short ID, address or MAC" />
    ${list.error ? html`<${ErrorState} error=${list.error} retry=${list.reload} />` : null}
    <div class="disc-pick-list">
      ${noneLabel ? html`<label class="disc-pick">
        <input type="radio" name=${name} checked=${!value} onChange=${() => onChange(null)} />
        <span class="disc-pick-main"><span class="disc-pick-title">${noneLabel}</span></span></label>` : null}
      ${options.map((o) => html`<label key=${o.id} class="disc-pick">
        <input type="radio" name=${name} checked=${value?.id === o.id} onChange=${() => onChange({ type: o.type ?? 'endpoints', id: o.id, short_id: o.short_id, name: o.name })} />
        <span class="disc-pick-main">
          <span class="disc-pick-title"><span class="disc-sid">${o.short_id}</span> ${o.name}${o.type === 'assets' ? html` <span class="muted small">(asset)</span>` : null}</span>
          ${o.note ? html`<span class="disc-pick-note">${o.note}</span>` : null}
          ${o.hostname && o.hostname !== o.name ? html`<span class="cell-sub mono">${o.hostname}</span>` : null}
        </span>
        ${o.addresses?.length ? html`<span class="disc-pick-side"><${Addresses} list=${o.addresses} max=${2} /></span>` : null}
      </label>`)}
      ${!options.length && list.data ? html`<p class="muted small disc-pick-empty">${dq ? 'No endpoint matches.' : 'The inventory has no endpoints yet.'}</p>` : null}
      ${more > 0 ? html`<p class="muted small disc-pick-empty">${more} more: type to narrow the list.</p>` : null}
    </div>
    ${error ? html`<div class="field-error" id=${errId}>${error}</div>` : null}
    ${hint ? html`<div class="field-hint" id=${hintId}>${hint}</div>` : null}
  </fieldset>`;
}
