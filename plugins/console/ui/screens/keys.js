import { html, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Badge, Button, CopyButton, ErrorBox, Field, Input, Loading, Notice, Page, Select, Table, formatTime, useResource } from '../lib/components.js';

const rbac = (path) => urlFor('rbac', '/hub/rbac' + path);

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
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-key">
    <h2 id="new-key">Create a key</h2>
    <div class="row">
      <${Input} label="Key name" value=${name} onInput=${setName} required />
      ${
        users
          ? html`<${Select}
              label="For user"
              value=${userId}
              onChange=${setUserId}
              options=${[{ value: '', label: 'myself' }, ...users.map((u) => ({ value: u.id, label: u.name }))]}
            />`
          : null
      }
      <${Input} label="Expires (optional)" type="datetime-local" value=${expires} onInput=${setExpires} />
    </div>
    <${Field} label="Scopes (none selected: every permission you and the user both hold)">
      ${(a) =>
        html`<select multiple size="6" onChange=${(e) => setScopes([...e.currentTarget.selectedOptions].map((o) => o.value))} ...${a}>
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
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await request(rbac('/users'), { method: 'POST', body: { name, roles: [role] } });
      setName('');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-user">
    <h2 id="new-user">Add a user</h2>
    <div class="row">
      <${Input} label="User name" value=${name} onInput=${setName} required />
      <${Select} label="Role" value=${role} onChange=${setRole} options=${roles.map((r) => r.name)} />
    </div>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name}>Add user<//>
  </form>`;
}

export default function Keys({ session }) {
  const manage = !session.permissions || session.permissions.includes('rbac:manage');
  const data = useResource(async () => {
    const [keys, permissions, users, roles] = await Promise.all([
      request(rbac('/keys?limit=200')),
      request(rbac('/permissions')),
      manage ? request(rbac('/users?limit=200')) : null,
      manage ? request(rbac('/roles')) : null,
    ]);
    return { keys: keys.keys, permissions: permissions.permissions, users: users && users.users, roles: roles && roles.roles };
  }, []);
  const [created, setCreated] = useState(null);
  const [error, setError] = useState(null);
  const revoke = async (k) => {
    try {
      await request(rbac('/keys/' + encodeURIComponent(k.id)), { method: 'DELETE' });
      data.reload();
    } catch (err) {
      setError(err);
    }
  };
  const d = data.data;
  return html`<${Page} title="Keys and users">
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
        : html`<${NewKey} users=${d.users} permissions=${d.permissions} onCreated=${(answer) => (setCreated(answer), data.reload())} />
            <${Table}
              caption="Keys"
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
            ${
              d.users
                ? html`<h2>Users</h2>
                    <${NewUser} roles=${d.roles} onCreated=${data.reload} />
                    <${Table}
                      caption="Users of this tenant"
                      rows=${d.users}
                      rowKey=${(u) => u.id}
                      columns=${[
                        { key: 'name', label: 'Name' },
                        { label: 'Roles', render: (u) => u.roles.join(', ') },
                        { label: 'State', render: (u) => (u.disabled ? 'disabled' : 'enabled') },
                        { label: 'Created', render: (u) => formatTime(u.createdAt) },
                      ]}
                    />`
                : html`<p class="muted">Managing users needs the rbac:manage permission.</p>`
            }`
    }
  <//>`;
}
