// A UI's shell: session, sign-in, header, lazily loaded screens (docs/console.md, "A new UI on the kit").
import { html, render, useEffect, useLayoutEffect, useState } from './preact.js';
import { ErrorBox, Loading } from './components.js';
import { Link, match, navigate, useLocation } from './router.js';
import { useSession } from './session.js';
import { SignInForm } from './sign-in-form.js';

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
  useLayoutEffect(() => {
    // Focus goes to a newly opened screen's title as it is drawn; a page load leaves it at the top.
    if (!mod) return;
    if (initialScreen) initialScreen = false;
    else document.getElementById('page-title')?.focus();
  }, [mod, screen.path]);
  if (error) return html`<${ErrorBox} error=${{ code: 'load_failed', message: String(error) }} />`;
  if (!mod) return html`<${Loading} />`;
  return html`<${mod.default} params=${params} session=${session} />`;
}

function route(screens, path) {
  for (const screen of screens) {
    const params = match(screen.path, path);
    if (params) return { screen, params };
  }
  return { screen: undefined, params: {} };
}

function Shell({ app }) {
  const loc = useLocation();
  const { session, error, refresh, signOut } = useSession(app.info, app.prepare);

  useEffect(() => {
    if (!session) return;
    const offersSignIn = session.signIn && !session.hasSession;
    if (!session.signedIn && loc.path !== '/sign-in') navigate('/sign-in?next=' + encodeURIComponent(loc.path + location.search), { replace: true });
    else if (session.signedIn && loc.path === '/') navigate(app.home, { replace: true });
    else if (session.signedIn && loc.path === '/sign-in' && !offersSignIn) navigate(loc.query.get('next') || app.home, { replace: true });
  }, [session, loc.path]);

  if (error) return html`<main id="main" class="boot"><${ErrorBox} error=${error} /></main>`;
  if (!session) return html`<main id="main" class="boot"><${Loading} what=${'Loading the ' + app.name} /></main>`;
  if (!session.signedIn || (loc.path === '/sign-in' && !session.hasSession))
    return html`<${SignInForm} session=${session} title=${app.signInTitle} onSignedIn=${refresh} listener=${app.listener} />`;

  const visible = app.visible ? app.screens.filter((s) => app.visible(s, session)) : app.screens;
  const { screen, params } = route(visible, loc.path);
  const leave = () => signOut().finally(() => session.auth || navigate(app.home));
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <span class="brand">Tessera <span class="muted">${app.brand ? app.brand(session) : app.name}</span></span>
      <nav aria-label="Screens">
        <ul>
          ${visible.filter((s) => s.title).map((s) => html`<li><${Link} href=${s.path}>${s.title}<//></li>`)}
        </ul>
      </nav>
      ${
        session.hasSession
          ? html`<button type="button" class="btn btn-secondary" onClick=${leave}>Sign out</button>`
          : session.signIn
            ? html`<${Link} class="btn btn-secondary" href="/sign-in">Sign in<//>`
            : null
      }
    </header>
    <main id="main" tabindex="-1">
      ${
        screen
          ? html`<${LazyScreen} key=${screen.path} screen=${screen} params=${params} session=${session} />`
          : html`<section class="page">
              <h1 id="page-title" tabindex="-1">Not found</h1>
              <p>No screen at <code>${loc.path}</code>.</p>
            </section>`
      }
    </main>`;
}

export function startShell(app) {
  // The address bar's screen loads beside the session.
  const first = route(app.screens, location.pathname).screen;
  if (first)
    first.load().then(
      (m) => loaded.set(first.path, m),
      () => undefined,
    );
  const root = document.getElementById('app');
  root.textContent = '';
  render(html`<${Shell} app=${app} />`, root);
}
