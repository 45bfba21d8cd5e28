// The frame of every page: a header with the title, an optional subtitle and actions, then the body.
// It also sets the document title ("Webhooks · lab-probe").
import { html, useEffect } from '../lib/html.js';
import { useSession } from '../lib/session.js';

export function Page({ title, subtitle, actions, children, wide = false }) {
  const { probeName } = useSession();
  useEffect(() => { document.title = title ? `${title} · ${probeName}` : probeName; }, [title, probeName]);
  return html`<div class=${`page${wide ? ' page-wide' : ''}`}>
    <header class="page-head">
      <div class="page-titles">
        <h1>${title}</h1>
        ${subtitle ? html`<p class="page-sub">${subtitle}</p>` : null}
      </div>
      ${actions ? html`<div class="page-actions">${actions}</div>` : null}
    </header>
    ${children}
  </div>`;
}

/** A titled box on a page. */
export function Card({ title, actions, children, class: cls = '', pad = true }) {
  return html`<section class=${`card ${cls}`}>
    ${title || actions ? html`<header class="card-head">
      ${title ? html`<h2>${title}</h2>` : null}
      ${actions ? html`<div class="card-actions">${actions}</div>` : null}
    </header>` : null}
    <div class=${pad ? 'card-body' : 'card-body flush'}>${children}</div>
  </section>`;
}
