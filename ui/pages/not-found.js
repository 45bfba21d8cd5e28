// Any path no route knows.
import { html } from '../lib/html.js';
import { EmptyState } from '../components/empty.js';
import { Page } from '../components/page.js';

export default function NotFoundPage() {
  return html`<${Page} title="Not found">
    <div class="card"><${EmptyState} icon="search" title="There is no page here" action=${html`<a class="btn btn-primary" href="/">Go to the dashboard</a>`}>
      <p>The address may be mistyped, or the page has moved.</p>
    <//></div>
  <//>`;
}
