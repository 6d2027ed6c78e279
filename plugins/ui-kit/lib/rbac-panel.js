// The rbac panel: API keys (a new key's secret shown once), the tenant's users, and optionally the
// roles with the permission matrix, through rbac's `/hub/rbac/*` routes. The control plane's Keys
// screen and the workflow hub's Access screen are this panel, each configured.
import { html, useState } from './preact.js';
import { request } from './api.js';
import { Badge, Button, CopyButton, ErrorBox, Loading, Notice, Page, Table, formatTime, useResource } from './components.js';
import { Link } from './router.js';
import { can } from './session.js';
import { EditUser, NewKey, NewRole, NewUser } from './rbac-forms.js';

/** Role × permission: which role grants what, with the plugin that declares each permission. */
function Matrix({ roles, permissions }) {
  return html`<div class="table-wrap">
    <table class="matrix">
      <caption>
        Permission matrix
      </caption>
      <thead>
        <tr>
          <th scope="col">Permission</th>
          <th scope="col">Declared by</th>
          ${roles.map((r) => html`<th scope="col">${r.name}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${permissions.map(
          (p) =>
            html`<tr>
              <th scope="row"><code>${p.name}</code></th>
              <td>${p.plugin}</td>
              ${roles.map((r) =>
                r.permissions.includes(p.name)
                  ? html`<td class="matrix-yes"><span aria-hidden="true">✓</span><span class="sr-only">${r.name} has ${p.name}</span></td>`
                  : html`<td class="matrix-no"><span aria-hidden="true">–</span><span class="sr-only">no</span></td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function Keys({ d, onRevoke }) {
  return html`<${Table}
    caption="API keys"
    rows=${d.keys}
    rowKey=${(k) => k.id}
    columns=${[
      { key: 'name', label: 'Name' },
      { label: 'Prefix', render: (k) => html`<code>${k.prefix}</code>` },
      { label: 'User', render: (k) => (d.users && d.users.find((u) => u.id === k.userId)?.name) || k.userId },
      { label: 'Scopes', render: (k) => k.scopes.join(', ') },
      { label: 'State', render: (k) => html`<${Badge} kind=${k.state === 'active' ? 'good' : 'neutral'}>${k.state}<//>` },
      { label: 'Last used', render: (k) => formatTime(k.lastUsedAt) },
      { label: 'Expires', render: (k) => (k.expiresAt ? formatTime(k.expiresAt) : 'never') },
      {
        label: 'Actions',
        render: (k) =>
          k.state === 'active' ? html`<${Button} kind="danger" onClick=${() => onRevoke(k)} aria-label=${'Revoke key ' + k.name}>Revoke<//>` : '–',
      },
    ]}
  />`;
}

function Users({ users, onEdit }) {
  return html`<${Table}
    caption="Users of this tenant"
    rows=${users}
    rowKey=${(u) => u.id}
    columns=${[
      { key: 'name', label: 'Name' },
      { label: 'Roles', render: (u) => u.roles.map((r) => html`<${Badge}>${r}<//> `) },
      { label: 'Password', render: (u) => (u.hasPassword ? 'set' : '–') },
      { label: 'State', render: (u) => (u.disabled ? html`<${Badge} kind="warn">disabled<//>` : 'enabled') },
      { label: 'Created', render: (u) => formatTime(u.createdAt) },
      { label: 'Actions', render: (u) => html`<${Button} onClick=${() => onEdit(u)} aria-label=${'Edit roles of ' + u.name}>Edit<//>` },
    ]}
  />`;
}

/**
 * `url(path)`: rbac's `/hub/rbac{path}` as this UI reaches it; `title`: the page's; `roles`: also
 * show the roles with the permission matrix and a form for a new role. Users and roles need
 * `rbac:manage`; without it the panel shows the session's own keys. rbac's routes always need a
 * session: on an open listener without one, the panel offers sign-in.
 */
export function RbacPanel({ session, url, title, roles = false }) {
  const manage = can(session, 'rbac:manage');
  const data = useResource(async () => {
    if (!session.hasSession) return null;
    const [keys, permissions, users, roleList] = await Promise.all([
      request(url('/keys?limit=200')),
      request(url('/permissions')),
      manage ? request(url('/users?limit=200')) : null,
      manage ? request(url('/roles')) : null,
    ]);
    return { keys: keys.keys, permissions: permissions.permissions, users: users && users.users, roles: roleList && roleList.roles };
  }, [session.hasSession]);
  const [created, setCreated] = useState(null);
  const [editing, setEditing] = useState(null);
  const [error, setError] = useState(null);
  if (!session.hasSession)
    return html`<${Page} title=${title}
      ><${Notice}
        >Users, roles and keys are rbac's and need a signed-in
        key${
          session.signIn
            ? html`: <${Link} href=${'/sign-in?next=' + encodeURIComponent(location.pathname)}>sign in<//>.`
            : ', and this listener does not serve sign-in (rbac is not on it).'
        }<//
      ><//
    >`;
  const revoke = async (k) => {
    try {
      await request(url('/keys/' + encodeURIComponent(k.id)), { method: 'DELETE' });
      data.reload();
    } catch (err) {
      setError(err);
    }
  };
  const d = data.data;
  return html`<${Page} title=${title}>
    <${ErrorBox} error=${data.error || error} />
    ${
      created
        ? html`<${Notice} kind="success">
            <p>Key <strong>${created.key.name}</strong> created. Copy the secret now: it is shown once and cannot be read again.</p>
            <p><code class="secret" data-testid="new-secret">${created.secret}</code> <${CopyButton} text=${created.secret} label="Copy key" /></p>
            <${Button} onClick=${() => setCreated(null)}>Done<//>
          <//>`
        : null
    }
    ${
      !d
        ? html`<${Loading} />`
        : html`<h2>Keys</h2>
            <${Keys} d=${d} onRevoke=${revoke} />
            <${NewKey} url=${url} users=${d.users} permissions=${d.permissions} onCreated=${(answer) => (setCreated(answer), data.reload())} />
            ${
              d.users
                ? html`<h2>Users</h2>
                    <${Users} users=${d.users} onEdit=${setEditing} />
                    <${NewUser} url=${url} roles=${d.roles} onCreated=${data.reload} />
                    <${EditUser}
                      key=${editing ? editing.id : 'none'}
                      url=${url}
                      user=${editing}
                      roles=${d.roles}
                      onClose=${() => setEditing(null)}
                      onSaved=${() => (setEditing(null), data.reload())}
                    />`
                : html`<p class="muted">Managing users${roles ? ' and roles' : ''} needs the rbac:manage permission.</p>`
            }
            ${
              roles && d.roles
                ? html`<h2>Roles</h2>
                    <${Matrix} roles=${d.roles} permissions=${d.permissions} />
                    <${NewRole} url=${url} permissions=${d.permissions} onCreated=${data.reload} />`
                : null
            }`
    }
  <//>`;
}
