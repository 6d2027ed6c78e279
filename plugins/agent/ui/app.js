// The agent console (listener 8000): the shell, sign-in and screen routing, on the control plane's
// foundation (plugins/ui-kit). Its API is this listener's own `/api/v1/*`.
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
    // After a navigation inside the page, focus goes to the new screen's title.
    if (!mod) return;
    if (initialScreen) initialScreen = false;
    else document.getElementById('page-title')?.focus();
  }, [mod, screen.path]);
  if (error) return html`<${ErrorBox} error=${{ code: 'load_failed', message: String(error) }} />`;
  if (!mod) return html`<${Loading} />`;
  return html`<${mod.default} params=${params} session=${session} />`;
}

async function loadSession() {
  const info = await request('/api/v1/console');
  const session = { auth: info.auth, signIn: info.signIn, name: info.name, version: info.version };
  if (!info.auth) return { ...session, signedIn: true };
  if (!info.signIn) return { ...session, signedIn: false };
  try {
    const s = await request(info.signIn);
    setCsrfToken(s.session ? s.session.csrfToken : null);
    return { ...session, tenant: s.tenant, permissions: s.permissions, signedIn: true };
  } catch (e) {
    if (e.status === 401) return { ...session, signedIn: false };
    throw e;
  }
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
    return onSignedOut(() => setSession((s) => (s ? { ...s, signedIn: false } : s)));
  }, []);
  useEffect(() => {
    if (!session) return;
    if (!session.signedIn && loc.path !== '/sign-in') navigate('/sign-in?next=' + encodeURIComponent(loc.path + location.search), { replace: true });
    else if (session.signedIn && (loc.path === '/' || loc.path === '/sign-in')) navigate(loc.query.get('next') || '/jobs', { replace: true });
  }, [session, loc.path]);

  if (error) return html`<main id="main" class="boot"><${ErrorBox} error=${error} /></main>`;
  if (!session) return html`<main id="main" class="boot"><${Loading} what="Loading the agent console" /></main>`;
  if (!session.signedIn || loc.path === '/sign-in')
    return html`<${SignInForm} session=${session} onSignedIn=${refresh} title="Sign in to the agent console" listener="agent" />`;

  let current;
  let params = {};
  for (const s of screens) {
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
      setSession({ ...session, signedIn: false });
    }
  };
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Tessera <span class="muted">agent console</span></span>
      <nav aria-label="Screens">
        <ul>
          ${screens.filter((s) => s.title).map((s) => html`<li><${Link} href=${s.path}>${s.title}<//></li>`)}
        </ul>
      </nav>
      ${session.auth ? html`<button type="button" class="btn btn-secondary" onClick=${signOut}>Sign out</button>` : null}
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
