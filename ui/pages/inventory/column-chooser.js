// Which columns an inventory list shows, chosen per user and per type: a "Columns" menu of checkboxes over
// the type's columns (the name always shows; some columns start hidden). Kept in this browser's
// localStorage under the user's id: the probe has no store of per-user preferences, and a column choice is
// a matter of one screen, so it stays with the browser it was made in (docs/brain.md, "Lists").
import { html, useEffect, useRef, useState } from '../../lib/html.js';
import { useSession } from '../../lib/session.js';
import { Icon } from '../../components/icons.js';

const keyOf = (userId, type) => `netprobe.inventory.columns.${userId ?? 'anyone'}.${type}`;

function read(key) {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? 'null');
    return Array.isArray(v) ? v.filter((k) => typeof k === 'string') : null;
  } catch {
    return null; // storage off or garbled: the defaults
  }
}

/**
 * The keys of the columns shown for this user and type, and a setter that keeps the choice. Columns with
 * `hidden: true` start hidden; `fixed: true` ones (the name) always show.
 * @returns {[Set<string>, (keys: Set<string> | null) => void]}
 */
export function useColumnChoice(type, columns) {
  const s = useSession();
  const key = keyOf(s.user?.id, type);
  const defaults = () => new Set(columns.filter((c) => !c.hidden).map((c) => c.key));
  const [shown, setShown] = useState(() => {
    const saved = read(key);
    return saved ? new Set([...saved, ...columns.filter((c) => c.fixed).map((c) => c.key)]) : defaults();
  });
  useEffect(() => {
    const saved = read(key);
    setShown(saved ? new Set([...saved, ...columns.filter((c) => c.fixed).map((c) => c.key)]) : defaults());
  }, [key]);
  const set = (keys) => {
    const next = keys ?? defaults();
    setShown(next);
    try {
      if (keys) localStorage.setItem(key, JSON.stringify([...keys]));
      else localStorage.removeItem(key);
    } catch { /* storage off: the choice lasts for this page only */ }
  };
  return [shown, set];
}

/** The "Columns" menu: a checkbox per column but the fixed ones, and a way back to the defaults. */
export function ColumnChooser({ columns, shown, onChange }) {
  const box = useRef(null);
  const [open, setOpen] = useState(false);
  // A click outside or Escape closes it.
  useEffect(() => {
    if (!open) return undefined;
    const away = (e) => { if (!box.current?.contains(e.target)) setOpen(false); };
    const esc = (e) => { if (e.key === 'Escape') setOpen(false); };
    document.addEventListener('click', away);
    document.addEventListener('keydown', esc);
    return () => { document.removeEventListener('click', away); document.removeEventListener('keydown', esc); };
  }, [open]);
  const toggle = (k) => {
    const next = new Set(shown);
    if (next.has(k)) next.delete(k); else next.add(k);
    onChange(next);
  };
  return html`<div class="col-chooser" ref=${box}>
    <button type="button" class="btn btn-sm" aria-expanded=${open ? 'true' : 'false'} aria-controls="col-menu"
      onClick=${() => setOpen(!open)}><${Icon} name="settings" size=${15} />Columns</button>
    ${open ? html`<div id="col-menu" class="col-menu" role="group" aria-label="Columns shown">
      ${columns.filter((c) => !c.fixed).map((c) => html`<label key=${c.key} class="check">
        <input type="checkbox" checked=${shown.has(c.key)} onChange=${() => toggle(c.key)} />${c.label}</label>`)}
      <button type="button" class="btn btn-sm btn-ghost" onClick=${() => onChange(null)}>Default columns</button>
    </div>` : null}
  </div>`;
}
