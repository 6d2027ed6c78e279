// The workflow hub UI (port 8787): talks to /hub/* only, on the ui-kit foundation the control
// plane uses (one component library, one sign-in, one look). See docs/hub-ui.md.
import { html, render, useEffect, useState } from './lib/preact.js';
import { onSignedOut, request, setCsrfToken } from './lib/api.js';
import { ErrorBox, Loading } from './lib/components.js';
import { Link, match, navigate, useLocation } from './lib/router.js';
import { SignInForm } from './lib/sign-in-form.js';
import { screens } from './screens/registry.js';

const loaded = new Map();
let initialScreen = true;

function LazyScreen({ screen, params, session }) {
  const [mod, setMod] = useState(loaded.get(screen.path));
  const [error, setError] = useState(null);
  useEffect(() => {
    if (mod) return;
    screen.load().then(
      (m) => {
        loaded.set(screen.path, m);
        setMod(m);
      },
      (e) => setError(e),
    );
  }, [screen.path]);
  useEffect(() => {
    // After a navigation inside the page, focus moves to the new screen's title.
    if (!mod) return;
    if (initialScreen) initialScreen = false;
    else document.getElementById('page-title')?.focus();
  }, [mod, screen.path]);
  if (error) return html`<${ErrorBox} error=${{ code: 'load_failed', message: String(error) }} />`;
  if (!mod) return html`<${Loading} />`;
  return html`<${mod.default} params=${params} session=${session} />`;
}

/**
 * `GET /hub/ui` says whether the listener enforces auth and whether rbac serves sign-in here.
 * Auth on: the rbac session decides (401: sign in). Auth off: every hub screen opens; with rbac on
 * the listener a session is still read (its routes always need one) for the Access screen.
 */
async function loadSession() {
  const info = await request('/hub/ui');
  const session = { ...info, permissions: null, signedIn: !info.auth, hasSession: false };
  if (info.signIn) {
    try {
      const s = await request(info.signIn);
      setCsrfToken(s.session ? s.session.csrfToken : null);
      return { ...session, tenant: s.tenant, permissions: s.permissions, signedIn: true, hasSession: true };
    } catch (e) {
      if (e.status !== 401) throw e;
    }
  }
  return session;
}

function App() {
  const loc = useLocation();
  const [session, setSession] = useState(undefined);
  const [error, setError] = useState(null);
  const refresh = () =>
    loadSession().then(
      (s) => {
        setError(null);
        setSession(s);
      },
      (e) => setError(e),
    );
  useEffect(() => {
    refresh();
    return onSignedOut(() => setSession((s) => (s && s.auth ? { ...s, signedIn: false, hasSession: false } : s ? { ...s, hasSession: false } : s)));
  }, []);

  useEffect(() => {
    if (!session) return;
    if (!session.signedIn && loc.path !== '/sign-in') navigate('/sign-in?next=' + encodeURIComponent(loc.path + location.search), { replace: true });
    else if (session.signedIn && loc.path === '/') navigate('/workflows', { replace: true });
    else if (session.hasSession && loc.path === '/sign-in') navigate(loc.query.get('next') || '/workflows', { replace: true });
  }, [session, loc.path]);

  if (error) return html`<main id="main" class="boot"><${ErrorBox} error=${error} /></main>`;
  if (!session) return html`<main id="main" class="boot"><${Loading} what="Loading the workflow hub" /></main>`;
  if (!session.signedIn || (loc.path === '/sign-in' && !session.hasSession))
    return html`<${SignInForm} session=${session} title="Sign in to the workflow hub" onSignedIn=${refresh} listener="hub" />`;

  const visible = screens.filter((s) => !s.rbac || session.rbac);
  let current;
  let params = {};
  for (const s of visible) {
    const p = match(s.path, loc.path);
    if (p) {
      current = s;
      params = p;
      break;
    }
  }
  const signOut = async () => {
    try {
      await request(session.signIn, { method: 'DELETE' });
    } finally {
      setCsrfToken(null);
      setSession({ ...session, signedIn: !session.auth, hasSession: false, permissions: null });
      if (!session.auth) navigate('/workflows');
    }
  };
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Tessera <span class="muted">workflow hub</span></span>
      <nav aria-label="Screens">
        <ul>
          ${visible.filter((s) => s.title).map((s) => html`<li><${Link} href=${s.path}>${s.title}<//></li>`)}
        </ul>
      </nav>
      ${
        session.hasSession
          ? html`<button type="button" class="btn btn-secondary" onClick=${signOut}>Sign out</button>`
          : session.signIn
            ? html`<${Link} class="btn btn-secondary" href="/sign-in">Sign in<//>`
            : null
      }
    </header>
    <main id="main" tabindex="-1">
      ${
        current
          ? html`<${LazyScreen} key=${current.path} screen=${current} params=${params} session=${session} />`
          : html`<section class="page">
              <h1 id="page-title" tabindex="-1">Not found</h1>
              <p>No screen at <code>${loc.path}</code>.</p>
            </section>`
      }
    </main>`;
}

const first = screens.find((s) => match(s.path, location.pathname));
if (first)
  first.load().then(
    (m) => loaded.set(first.path, m),
    () => undefined,
  );

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
