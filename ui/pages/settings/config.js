// Configuration (administrators): the configuration file as YAML (GET /api/config; secrets shown as
// {set: true}), edited in place and saved whole (POST /api/config). The service checks everything before
// it writes anything: syntax errors and invalid keys come back with their line, listed above the editor
// and marked in its line numbers; "Go to line" selects the line. The answer says which keys changed, which
// apply at once and which need a restart. Also the CSV export (GET /api/config/export).
import { html, useEffect, useMemo, useRef, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { toast } from '../../lib/toast.js';
import { ErrorState, Loading } from '../../components/empty.js';
import { XIcon } from '../../components/extra-icons.js';
import { Icon } from '../../components/icons.js';
import { Card } from '../../components/page.js';
import { sendRaw } from './parts.js';

const LINE_PX = 20;

/** The line an error names: its `line`, or "(line n)" in its message. */
export function lineOf(e) {
  if (Number.isInteger(e.line)) return e.line;
  const m = /\(line (\d+)\)/.exec(e.message ?? '');
  return m ? Number(m[1]) : null;
}

function Editor({ initial, onSaved }) {
  const [text, setText] = useState(initial);
  const [error, setError] = useState(null);
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);
  const area = useRef(null);
  const gutter = useRef(null);
  const lines = useMemo(() => text.split('\n').length, [text]);
  const bad = useMemo(() => new Set((error?.errors ?? []).map(lineOf).filter(Boolean)), [error]);
  const dirty = text !== initial;
  useEffect(() => { setText(initial); }, [initial]);

  const sync = () => { if (gutter.current && area.current) gutter.current.scrollTop = area.current.scrollTop; };
  const goTo = (line) => {
    const ta = area.current;
    if (!ta) return;
    const all = ta.value.split('\n');
    const start = all.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    ta.focus();
    ta.setSelectionRange(start, start + (all[line - 1]?.length ?? 0));
    ta.scrollTop = Math.max(0, (line - 4) * LINE_PX);
    sync();
  };
  const save = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const r = await sendRaw('POST', '/api/config', text, { type: 'application/yaml' });
      setResult(r);
      toast.ok(r.changed.length ? `Configuration saved: ${r.changed.length} ${r.changed.length === 1 ? 'key' : 'keys'} changed` : 'Configuration saved: nothing changed');
      onSaved();
    } catch (err) {
      setError(err);
      const first = (err.errors ?? []).map(lineOf).find(Boolean);
      if (first) setTimeout(() => { if (area.current) area.current.scrollTop = Math.max(0, (first - 4) * LINE_PX); sync(); }, 0);
    } finally {
      setBusy(false);
    }
  };
  return html`<form onSubmit=${save}>
    ${error ? html`<div class="alert alert-error" role="alert" data-testid="config-errors"><${Icon} name="alert" /><div class="alert-body">
      <strong>${error.detail}</strong> — nothing was saved.
      ${error.errors?.length ? html`<ul class="yaml-errors">${error.errors.map((x, i) => {
        const line = lineOf(x);
        return html`<li key=${i}>${line ? html`<button type="button" class="btn btn-sm" onClick=${() => goTo(line)}>Go to line ${line}</button>` : null}
          <span>${x.path ? html`<code>${x.path}</code> ` : null}${x.message}</span></li>`;
      })}</ul>` : null}
    </div></div>` : null}
    ${result ? html`<div class=${`alert ${result.restart_required.length ? 'alert-warn' : 'alert-ok'}`} role="status"><${Icon} name=${result.restart_required.length ? 'alert' : 'check'} />
      <div class="alert-body">
        ${result.changed.length ? html`<div>Changed: ${result.changed.map((k) => html`<code key=${k}>${k}</code> `)}</div>` : html`<div>Nothing changed.</div>`}
        ${result.restart_required.length ? html`<div>These take effect at the next start of the service: ${result.restart_required.map((k) => html`<code key=${k}>${k}</code> `)}</div>` : null}
      </div></div>` : null}
    <label for="config-yaml" style="display:block;font-weight:600;margin-bottom:6px">Configuration file (YAML)</label>
    <div class="yaml-editor">
      <ol class="yaml-gutter" ref=${gutter} aria-hidden="true">
        ${Array.from({ length: lines }, (_, i) => html`<li key=${i} class=${bad.has(i + 1) ? 'line-error' : undefined} data-line=${i + 1}>${i + 1}</li>`)}
      </ol>
      <textarea id="config-yaml" ref=${area} value=${text} spellcheck="false" autocapitalize="none" autocomplete="off" wrap="off"
        aria-invalid=${error ? 'true' : undefined} aria-describedby="config-yaml-hint"
        onInput=${(e) => setText(e.currentTarget.value)} onScroll=${sync}></textarea>
    </div>
    <p id="config-yaml-hint" class="muted small">Secrets show as <code>{set: true}</code>: leave them so to keep them, write a new value to
      replace one, or <code>{set: false}</code> to clear it. Keys left out take their defaults (docs/configuration.md lists every key).</p>
    <div class="form-actions">
      <a class="btn" href="/api/config/export" download="netprobe-config.csv"><${XIcon} name="download" size=${15} />Export as CSV</a>
      <button type="button" class="btn" disabled=${!dirty || busy} onClick=${() => { setText(initial); setError(null); }}>Undo my changes</button>
      <button type="submit" class="btn btn-primary" disabled=${busy}>${busy ? 'Saving…' : 'Save configuration'}</button>
    </div>
  </form>`;
}

export default function ConfigSection() {
  const cfg = useApi('/api/config');
  return html`<${Card} title="Configuration">
    ${cfg.error ? html`<${ErrorState} error=${cfg.error} retry=${cfg.reload} />`
      : cfg.data === undefined ? html`<${Loading} />`
        : html`<${Editor} initial=${typeof cfg.data === 'string' ? cfg.data : ''} onSaved=${cfg.reload} />`}
  <//>`;
}
