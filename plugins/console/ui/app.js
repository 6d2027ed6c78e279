import { html, render, useEffect, useState } from './lib/preact.js';
import { onSignedOut, request, serves, setCsrfToken, setFleet } from './lib/api.js';
import { ErrorBox, Loading } from './lib/components.js';
import { Link, match, navigate, useLocation } from './lib/router.js';
import { screens } from './screens/registry.js';
import { SignIn } from './screens/sign-in.js';

const loaded = new Map();
let initialScreen = true;

/** Loads a screen's module once; renders it when ready. */
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
    // After a navigation inside the page, focus goes to the new screen's title (as a page load
    // would start reading there); on the first load it stays at the top, before the skip link.
    if (!mod) return;
    if (initialScreen) initialScreen = false;
    else document.getElementById('page-title')?.focus();
  }, [mod, screen.path]);
  if (error) return html`<${ErrorBox} error=${{ code: 'load_failed', message: String(error) }} />`;
  if (!mod) return html`<${Loading} />`;
  return html`<${mod.default} params=${params} session=${session} />`;
}

async function loadSession() {
  const info = await request('/api/console');
  // Asked at once, beside the session: only used when the session holds.
  const systemAnswer = request('/v1/system').then(
    (system) => ({ system }),
    (error) => ({ error }),
  );
  let session = { auth: info.auth, signIn: info.signIn, permissions: null };
  if (info.auth && info.signIn) {
    try {
      const s = await request(info.signIn);
      setCsrfToken(s.session ? s.session.csrfToken : null);
      session = { ...session, tenant: s.tenant, permissions: s.permissions, signedIn: true };
    } catch (e) {
      if (e.status === 401) return { ...session, signedIn: false };
      throw e;
    }
  } else session.signedIn = true;
  const answer = await systemAnswer;
  if (answer.error) throw answer.error;
  const system = answer.system;
  setFleet(system, info.listener);
  return { ...session, system, name: info.name };
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
    else if (session.signedIn && (loc.path === '/' || loc.path === '/sign-in')) navigate(loc.query.get('next') || '/fleet', { replace: true });
  }, [session, loc.path]);

  if (error) return html`<main id="main" class="boot"><${ErrorBox} error=${error} /></main>`;
  if (!session) return html`<main id="main" class="boot"><${Loading} what="Loading the control plane" /></main>`;
  if (!session.signedIn || loc.path === '/sign-in') return html`<${SignIn} session=${session} onSignedIn=${refresh} />`;

  const visible = screens.filter((s) => s.requires === null || serves(s.requires));
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
      setSession({ ...session, signedIn: false });
    }
  };
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Tessera <span class="muted">${session.name}</span></span>
      <nav aria-label="Screens">
        <ul>
          ${visible.filter((s) => s.title).map((s) => html`<li><${Link} href=${s.path}>${s.title}<//></li>`)}
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

// The screen of the address bar starts loading with the session, not after it.
const first = screens.find((s) => match(s.path, location.pathname));
if (first)
  first.load().then(
    (m) => loaded.set(first.path, m),
    () => undefined,
  );

const root = document.getElementById('app');
// The boot message is static HTML, not Preact's: clear it before the first render.
root.textContent = '';
render(html`<${App} />`, root);
