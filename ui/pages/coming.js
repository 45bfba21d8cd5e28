// A section whose pages are not built yet: says so plainly instead of showing an empty screen.
import { html } from '../lib/html.js';
import { EmptyState } from '../components/empty.js';
import { Page } from '../components/page.js';

export default function ComingPage({ title, icon, text }) {
  return html`<${Page} title=${title}>
    <div class="card"><${EmptyState} icon=${icon} title=${`${title} is coming`}>
      <p>${text}</p>
      <p>Until then everything is reachable through the REST API: <a href="/api/openapi.json" target="_blank" rel="noopener">openapi.json</a>.</p>
    <//></div>
  <//>`;
}
