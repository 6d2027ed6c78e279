// The forms of the rbac panel (rbac-panel.js): a key, a user, a user's roles, a role. Each is
// given `url(path)`, the address of rbac's `/hub/rbac{path}` for this UI.
import { html, useState } from './preact.js';
import { request } from './api.js';
import { Button, Checkbox, Dialog, ErrorBox, Field, Input, Select } from './components.js';

/** A multiple choice of permissions, each shown with its description. */
function PermissionChoice({ label, permissions, chosen, onChange }) {
  return html`<${Field} label=${label}>
    ${(a) =>
      html`<select multiple size="8" onChange=${(e) => onChange([...e.currentTarget.selectedOptions].map((o) => o.value))} ...${a}>
        ${permissions.map((p) => html`<option value=${p.name} selected=${chosen.includes(p.name)}>${p.name}: ${p.description}</option>`)}
      </select>`}
  <//>`;
}

/** Runs a form's write: the error stays on the form, success clears it. */
function useSubmit(write) {
  const [error, setError] = useState(null);
  const submit = async (e) => {
    if (e) e.preventDefault();
    setError(null);
    try {
      await write();
    } catch (err) {
      setError(err);
    }
  };
  return { error, submit };
}

export function NewKey({ url, users, permissions, onCreated }) {
  const [name, setName] = useState('');
  const [userId, setUserId] = useState('');
  const [scopes, setScopes] = useState([]);
  const [expires, setExpires] = useState('');
  const { error, submit } = useSubmit(async () => {
    const body = {
      name,
      ...(userId ? { userId } : {}),
      ...(scopes.length ? { scopes } : {}),
      ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
    };
    onCreated(await request(url('/keys'), { method: 'POST', body }));
    setName('');
    setScopes([]);
  });
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-key">
    <h2 id="new-key">Create a key</h2>
    <div class="row">
      <${Input} label="Key name" value=${name} onInput=${setName} required name="keyName" />
      ${users ? html`<${Select} label="For user" value=${userId} onChange=${setUserId} options=${[{ value: '', label: 'myself' }, ...users.map((u) => ({ value: u.id, label: u.name }))]} />` : null}
      <${Input} label="Expires (optional)" type="datetime-local" value=${expires} onInput=${setExpires} />
    </div>
    <${PermissionChoice}
      label="Scopes (none selected: every permission you and the user both hold)"
      permissions=${permissions}
      chosen=${scopes}
      onChange=${setScopes}
    />
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name}>Create key<//>
  </form>`;
}

export function NewUser({ url, roles, onCreated }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState('viewer');
  const [password, setPassword] = useState('');
  const { error, submit } = useSubmit(async () => {
    await request(url('/users'), { method: 'POST', body: { name, roles: [role], ...(password ? { password } : {}) } });
    setName('');
    setPassword('');
    onCreated();
  });
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

/** A user's roles and whether it is disabled, in a dialog (closed while `user` is null). */
export function EditUser({ url, user, roles, onClose, onSaved }) {
  const [chosen, setChosen] = useState(user ? user.roles : []);
  const [disabled, setDisabled] = useState(user ? user.disabled : false);
  const { error, submit } = useSubmit(async () => {
    await request(url('/users'), { method: 'PUT', body: { id: user.id, roles: chosen, disabled } });
    onSaved();
  });
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
              <${Button} kind="primary" onClick=${() => submit()}>Save<//>
            </div>`
        : null
    }
  <//>`;
}

export function NewRole({ url, permissions, onCreated }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState([]);
  const { error, submit } = useSubmit(async () => {
    await request(url('/roles'), { method: 'POST', body: { name, description, permissions: chosen } });
    setName('');
    setDescription('');
    setChosen([]);
    onCreated();
  });
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-role">
    <h2 id="new-role">Add a role</h2>
    <div class="row">
      <${Input} label="Role name" value=${name} onInput=${setName} required name="roleName" />
      <${Input} label="Description" value=${description} onInput=${setDescription} name="roleDescription" />
    </div>
    <${PermissionChoice} label="Permissions of the role" permissions=${permissions} chosen=${chosen} onChange=${setChosen} />
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name || !chosen.length}>Add role<//>
  </form>`;
}
