// One session loaded for a page (the session page, its map): what a PATCH answers replaces it at once,
// without loading it again; until it is there, the page shows "not found", the error or a spinner.
import { html, useState } from '../../lib/html.js';
import { useApi } from '../../lib/hooks.js';
import { EmptyState, ErrorState, Loading } from '../../components/empty.js';
import { Card, Page } from '../../components/page.js';

/** {session, replace, reload, placeholder}: `placeholder` is what to show instead while `session` is not ready. */
export function useLoadedSession(id, title) {
  const r = useApi(`/api/v1sion/sessions/${encodeURIComponent(id)}`);
  const [saved, setSaved] = useState(null);
  const session = saved ?? r.data;
  let placeholder = null;
  if (r.error?.status === 404) {
    placeholder = html`<${Page} title="Not found"><${Card}><${EmptyState} icon="search" title="There is no such session"
      action=${html`<a class="btn btn-primary" href="/discovery/sessions">All sessions</a>`}><p>It may have been deleted.</p><//><//><//>`;
  } else if (r.error) placeholder = html`<${Page} title=${title}><${ErrorState} error=${r.error} retry=${r.reload} /><//>`;
  else if (!session) placeholder = html`<${Page} title=${title}><${Card}><${Loading} /><//><//>`;
  return { session, placeholder, replace: setSaved, reload: () => { setSaved(null); r.reload(); } };
}
