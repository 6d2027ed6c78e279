import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import {
  Badge,
  Button,
  Checkbox,
  CopyButton,
  Dialog,
  ErrorBox,
  Field,
  Input,
  Loading,
  Notice,
  Page,
  Select,
  Table,
  formatTime,
  useResource,
} from '../lib/components.js';
import { Link } from '../lib/router.js';
import { can } from './common.js';

const rbac = (path) => '/hub/rbac' + path;

function NewKey({ users, permissions, onCreated }) {
  const [name, setName] = useState('');
  const [userId, setUserId] = useState('');
  const [scopes, setScopes] = useState([]);
  const [expires, setExpires] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const body = {
        name,
        ...(userId ? { userId } : {}),
        ...(scopes.length ? { scopes } : {}),
        ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
      };
      onCreated(await request(rbac('/keys'), { method: 'POST', body }));
      setName('');
      setScopes([]);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-key">
    <h2 id="new-key">Create a key</h2>
    <div class="row">
      <${Input} label="Key name" value=${name} onInput=${setName} required name="keyName" />
      ${users ? html`<${Select} label="For user" value=${userId} onChange=${setUserId} options=${[{ value: '', label: 'myself' }, ...users.map((u) => ({ value: u.id, label: u.name }))]} />` : null}
      <${Input} label="Expires (optional)" type="datetime-local" value=${expires} onInput=${setExpires} />
    </div>
    <${Field} label="Scopes (none selected: every permission you and the user both hold)">
      ${(a) =>
        html`<select multiple size="8" onChange=${(e) => setScopes([...e.currentTarget.selectedOptions].map((o) => o.value))} ...${a}>
          ${permissions.map((p) => html`<option value=${p.name} selected=${scopes.includes(p.name)}>${p.name}: ${p.description}</option>`)}
        </select>`}
    <//>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name}>Create key<//>
  </form>`;
}

function NewUser({ roles, onCreated }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [password, setPassword] = useState('');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await request(rbac('/users'), { method: 'POST', body: { name, roles: [role], ...(password ? { password } : {}) } });
      setName('');
      setPassword('');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-user">
    <h2 id="new-user">Add a user</h2>
    <div class="row">
      <${Input} label="User name" value=${name} onInput=${setName} required name="userName" />
      <${Select} label="Role" value=${role} onChange=${setRole} options=${roles.map((r) => r.name)} />
      <${Input} label="Password (optional, 12+ characters)" type="password" value=${password} onInput=${setPassword} autocomplete="new-password" />
    </div>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name}>Add user<//>
  </form>`;
}

function EditUser({ user, roles, onClose, onSaved }) {
  const [chosen, setChosen] = useState(user ? user.roles : []);
  const [disabled, setDisabled] = useState(user ? user.disabled : false);
  const [error, setError] = useState(null);
  const save = async () => {
    try {
      await request(rbac('/users'), { method: 'PUT', body: { id: user.id, roles: chosen, disabled } });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return html`<${Dialog} open=${Boolean(user)} title=${user ? 'Roles of ' + user.name : ''} onClose=${onClose}>
    ${
      user
        ? html`<fieldset>
              <legend>Roles</legend>
              ${roles.map(
                (r) =>
                  html`<${Checkbox}
                    label=${r.name}
                    checked=${chosen.includes(r.name)}
                    onChange=${(on) => setChosen(on ? [...chosen, r.name] : chosen.filter((x) => x !== r.name))}
                  />`,
              )}
            </fieldset>
            <${Checkbox} label="Disabled (its keys and sessions stop working)" checked=${disabled} onChange=${setDisabled} />
            <${ErrorBox} error=${error} />
            <div class="actions">
              <${Button} onClick=${onClose}>Cancel<//>
              <${Button} kind="primary" onClick=${save}>Save<//>
            </div>`
        : null
    }
  <//>`;
}

function NewRole({ permissions, onCreated }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState([]);
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await request(rbac('/roles'), { method: 'POST', body: { name, description, permissions: chosen } });
      setName('');
      setDescription('');
      setChosen([]);
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-role">
    <h2 id="new-role">Add a role</h2>
    <div class="row">
      <${Input} label="Role name" value=${name} onInput=${setName} required name="roleName" />
      <${Input} label="Description" value=${description} onInput=${setDescription} name="roleDescription" />
    </div>
    <${Field} label="Permissions of the role">
      ${(a) =>
        html`<select multiple size="8" onChange=${(e) => setChosen([...e.currentTarget.selectedOptions].map((o) => o.value))} ...${a}>
          ${permissions.map((p) => html`<option value=${p.name} selected=${chosen.includes(p.name)}>${p.name}: ${p.description}</option>`)}
        </select>`}
    <//>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name || !chosen.length}>Add role<//>
  </form>`;
}

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

/** Users, roles, keys and the permission matrix, through rbac's /hub/rbac/* routes. */
export default function Access({ session }) {
  const manage = can(session, 'rbac:manage');
  const data = useResource(async () => {
    if (!session.hasSession) return null;
    const [keys, permissions, users, roles] = await Promise.all([
      request(rbac('/keys?limit=200')),
      request(rbac('/permissions')),
      manage ? request(rbac('/users?limit=200')) : null,
      manage ? request(rbac('/roles')) : null,
    ]);
    return { keys: keys.keys, permissions: permissions.permissions, users: users && users.users, roles: roles && roles.roles };
  }, [session.hasSession]);
  const [created, setCreated] = useState(null);
  const [editing, setEditing] = useState(null);
  const [error, setError] = useState(null);
  if (!session.hasSession)
    return html`<${Page} title="Access"
      ><${Notice}>Users, roles and keys are rbac's and need a signed-in key: <${Link} href="/sign-in?next=%2Faccess">sign in<//>.<//><//
    >`;
  const revoke = async (k) => {
    try {
      await request(rbac('/keys/' + encodeURIComponent(k.id)), { method: 'DELETE' });
      data.reload();
    } catch (err) {
      setError(err);
    }
  };
  const d = data.data;
  return html`<${Page} title="Access">
    <${ErrorBox} error=${data.error || error} />
    ${
      created
        ? html`<${Notice} kind="success">
            <p>Key <strong>${created.key.name}</strong> created. Copy the secret now: it is shown once.</p>
            <p><code class="secret" data-testid="new-secret">${created.secret}</code> <${CopyButton} text=${created.secret} label="Copy key" /></p>
            <${Button} onClick=${() => setCreated(null)}>Done<//>
          <//>`
        : null
    }
    ${
      !d
        ? html`<${Loading} />`
        : html`${
              d.users
                ? html`<h2>Users</h2>
                    <${Table}
                      caption="Users of this tenant"
                      rows=${d.users}
                      rowKey=${(u) => u.id}
                      columns=${[
                        { key: 'name', label: 'Name' },
                        { label: 'Roles', render: (u) => u.roles.map((r) => html`<${Badge}>${r}<//> `) },
                        { label: 'Password', render: (u) => (u.hasPassword ? 'set' : '–') },
                        { label: 'State', render: (u) => (u.disabled ? html`<${Badge} kind="warn">disabled<//>` : 'enabled') },
                        { label: 'Created', render: (u) => formatTime(u.createdAt) },
                        { label: 'Actions', render: (u) => html`<${Button} onClick=${() => setEditing(u)} aria-label=${'Edit roles of ' + u.name}>Edit<//>` },
                      ]}
                    />
                    <${NewUser} roles=${d.roles} onCreated=${data.reload} />
                    <${EditUser}
                      key=${editing ? editing.id : 'none'}
                      user=${editing}
                      roles=${d.roles}
                      onClose=${() => setEditing(null)}
                      onSaved=${() => (setEditing(null), data.reload())}
                    />`
                : html`<p class="muted">Managing users and roles needs the rbac:manage permission; below are your own keys.</p>`
            }
            <h2>Keys</h2>
            <${Table}
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
                    k.state === 'active' ? html`<${Button} kind="danger" onClick=${() => revoke(k)} aria-label=${'Revoke key ' + k.name}>Revoke<//>` : '–',
                },
              ]}
            />
            <${NewKey} users=${d.users} permissions=${d.permissions} onCreated=${(answer) => (setCreated(answer), data.reload())} />
            ${
              d.roles
                ? html`<h2>Roles</h2>
                    <${Matrix} roles=${d.roles} permissions=${d.permissions} />
                    <${NewRole} permissions=${d.permissions} onCreated=${data.reload} />`
                : null
            }`
    }
  <//>`;
}
