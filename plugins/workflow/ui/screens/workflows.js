import { html } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, ErrorBox, Loading, Page, Table, formatTime, useResource } from '../lib/components.js';
import { Link } from '../lib/router.js';
import { NEW_ID, StatusBadge, can, ms, routeText } from './common.js';

/** Every workflow of the tenant: route, tags, version, whether it is served, its last run. */
export default function Workflows({ session }) {
  const data = useResource(() => request('/hub/apis'), []);
  const apis = data.data ? data.data.apis : null;
  return html`<${Page}
    title="Workflows"
    actions=${can(session, 'workflow:create') ? html`<${Link} class="btn btn-primary" href=${'/workflows/' + NEW_ID}>New workflow<//>` : null}
  >
    <${ErrorBox} error=${data.error} />
    ${
      !apis
        ? data.error
          ? null
          : html`<${Loading} />`
        : html`<${Table}
            caption="Workflows of this tenant"
            rows=${apis}
            rowKey=${(w) => w.id}
            empty="No workflow yet: create one, or start the server with the workflow plugin's workflows option."
            columns=${[
              { label: 'Name', render: (w) => html`<${Link} href=${'/workflows/' + encodeURIComponent(w.id)}>${w.name}<//>` },
              {
                label: 'Route',
                render: (w) => html`<code>${routeText(w.route)}</code> ${w.live ? null : html`<${Badge} kind="warn">not served<//>`}`,
              },
              { label: 'Tags', render: (w) => (w.tags.length ? w.tags.map((t) => html`<${Badge}>${t}<//> `) : html`<span class="muted">–</span>`) },
              { key: 'version', label: 'Version' },
              { label: 'Source', render: (w) => (w.source === 'file' ? 'file' : 'hub') },
              {
                label: 'Last run',
                render: (w) =>
                  w.lastExecution
                    ? html`<${StatusBadge} status=${w.lastExecution.status} />
                        <${Link} href=${'/traces/' + encodeURIComponent(w.lastExecution.id)}>${formatTime(w.lastExecution.startedAt)}<//>
                        <span class="muted"> ${ms(w.lastExecution.durationMs)}</span>`
                    : html`<${StatusBadge} />`,
              },
              { label: 'Updated', render: (w) => formatTime(w.updatedAt) },
            ]}
          />`
    }
  <//>`;
}
