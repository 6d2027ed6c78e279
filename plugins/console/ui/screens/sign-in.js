import { html, useState } from '../lib/preact.js';
import { request, setCsrfToken } from '../lib/api.js';
import { Button, ErrorBox, Input, Notice } from '../lib/components.js';

/**
 * Sign-in with an API key through rbac's cookie session (`POST /hub/session`): the key is sent once
 * and never stored by the page; the HttpOnly cookie and the CSRF token carry the session.
 */
export function SignIn({ session, onSignedIn }) {
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await request(session.signIn, { method: 'POST', body: { apiKey } });
      setCsrfToken(answer.session.csrfToken);
      setApiKey('');
      await onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="main" class="sign-in">
    <h1 id="page-title" tabindex="-1">Sign in to Tessera</h1>
    ${
      session.signIn
        ? html`<form onSubmit=${submit} aria-describedby="sign-in-help">
            <p id="sign-in-help">Sign in with an API key (<code>tsk_…</code>). The key is exchanged for a session cookie and not kept by this page.</p>
            <${Input} label="API key" type="password" value=${apiKey} onInput=${setApiKey} autocomplete="off" required name="apiKey" />
            <${ErrorBox} error=${error} />
            <${Button} kind="primary" type="submit" disabled=${busy || !apiKey}>${busy ? 'Signing in…' : 'Sign in'}<//>
          </form>`
        : html`<${Notice} kind="error"
            >This listener enforces auth but does not serve sign-in: add the <code>rbac</code> plugin to the control plane's listener in the manifest.<//
          >`
    }
  </main>`;
}
