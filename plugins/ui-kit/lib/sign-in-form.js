// rbac's sign-in (API key, or user name and password), sent once and never stored by the page.
import { html, useState } from './preact.js';
import { request, setCsrfToken } from './api.js';
import { Button, ErrorBox, Input, Notice, Select } from './components.js';

const methods = [
  { value: 'apiKey', label: 'API key' },
  { value: 'password', label: 'User name and password' },
];

/** `listener` names where rbac must be added when `session.signIn` is null. */
export function SignInForm({ session, onSignedIn, title = 'Sign in to Tessera', listener = 'this' }) {
  const [method, setMethod] = useState('apiKey');
  const [apiKey, setApiKey] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const ready = method === 'apiKey' ? apiKey !== '' : username !== '' && password !== '';
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = method === 'apiKey' ? { apiKey } : { username, password, ...(tenant.trim() ? { tenant: tenant.trim() } : {}) };
      const answer = await request(session.signIn, { method: 'POST', body });
      setCsrfToken(answer.session.csrfToken);
      setApiKey('');
      setPassword('');
      await onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="main" class="sign-in">
    <h1 id="page-title" tabindex="-1">${title}</h1>
    ${
      session.signIn
        ? html`<form onSubmit=${submit} aria-describedby="sign-in-help">
            <p id="sign-in-help">
              Sign in with an API key (<code>tsk_…</code>) or with a user name and password an administrator set. The credential is exchanged for a session
              cookie and not kept by this page.
            </p>
            <${Select} label="Sign in with" value=${method} onChange=${setMethod} options=${methods} name="method" />
            ${
              method === 'apiKey'
                ? html`<${Input} label="API key" type="password" value=${apiKey} onInput=${setApiKey} autocomplete="off" required name="apiKey" />`
                : html`<${Input} label="User name" value=${username} onInput=${setUsername} autocomplete="username" required name="username" />
                    <${Input}
                      label="Password"
                      type="password"
                      value=${password}
                      onInput=${setPassword}
                      autocomplete="current-password"
                      required
                      name="password"
                    />
                    <${Input}
                      label="Tenant"
                      hint="Leave empty for the deployment's default tenant."
                      value=${tenant}
                      onInput=${setTenant}
                      autocomplete="organization"
                      name="tenant"
                    />`
            }
            <${ErrorBox} error=${error} />
            <${Button} kind="primary" type="submit" disabled=${busy || !ready}>${busy ? 'Signing in…' : 'Sign in'}<//>
          </form>`
        : html`<${Notice} kind="error"
            >This listener enforces auth but does not serve sign-in: add the <code>rbac</code> plugin to the ${listener} listener in the manifest.<//
          >`
    }
  </main>`;
}
