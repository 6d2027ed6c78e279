// The workflow hub UI (port 8787): talks to /hub/* only, on the ui-kit shell the control plane
// uses (one component library, one sign-in, one look). See docs/hub-ui.md.
//
// `GET /hub/ui` says whether the listener enforces auth and whether rbac serves sign-in here.
// Auth on: the rbac session decides (401: sign in). Auth off: every hub screen opens; with rbac on
// the listener a session is still offered (its routes always need one) for the Access screen.
import { startShell } from './lib/shell.js';
import { screens } from './screens/registry.js';

startShell({
  name: 'workflow hub',
  info: '/hub/ui',
  screens,
  visible: (screen, session) => !screen.rbac || session.rbac,
  home: '/workflows',
  signInTitle: 'Sign in to the workflow hub',
  listener: 'hub',
});
