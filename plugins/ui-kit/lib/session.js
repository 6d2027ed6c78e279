// A UI's session (docs/console.md, "A new UI on the kit"): info route, rbac session, sign-out.
import { useEffect, useState } from './preact.js';
import { onSignedOut, request, setCsrfToken } from './api.js';

/** rbac's session at `signIn` (its CSRF token kept for writes), or null on 401. */
export async function readSession(signIn) {
  try {
    const s = await request(signIn);
    setCsrfToken(s.session ? s.session.csrfToken : null);
    return { tenant: s.tenant, permissions: s.permissions };
  } catch (e) {
    if (e.status === 401) return null;
    throw e;
  }
}

export async function loadSession(infoUrl, prepare) {
  const info = await request(infoUrl);
  const extra = prepare
    ? prepare(info).then(
        (value) => ({ value }),
        (error) => ({ error }),
      )
    : null;
  const s = info.signIn ? await readSession(info.signIn) : null;
  const session = { ...info, tenant: s && s.tenant, permissions: s ? s.permissions : null, signedIn: !info.auth || s !== null, hasSession: s !== null };
  if (!session.signedIn || !extra) return session;
  const answer = await extra;
  if (answer.error) throw answer.error;
  return { ...session, ...answer.value };
}

function withoutSession(session) {
  return { ...session, signedIn: !session.auth, hasSession: false, tenant: undefined, permissions: null };
}

/** Without an rbac session the listener decides. */
export function can(session, permission) {
  return !session.permissions || session.permissions.includes(permission);
}

export function useSession(infoUrl, prepare) {
  const [session, setSession] = useState(undefined);
  const [error, setError] = useState(null);
  const refresh = () =>
    loadSession(infoUrl, prepare).then(
      (s) => {
        setError(null);
        setSession(s);
      },
      (e) => setError(e),
    );
  useEffect(() => {
    refresh();
    return onSignedOut(() => setSession((s) => s && withoutSession(s)));
  }, []);
  const signOut = async () => {
    try {
      await request(session.signIn, { method: 'DELETE' });
    } finally {
      setCsrfToken(null);
      setSession(withoutSession(session));
    }
  };
  return { session, error, refresh, signOut };
}
