// The agent console (listener 8000) on the ui-kit shell: sign-in, the header and screen routing
// are the kit's. Its API is this listener's own `/api/v1/*`.
import { startShell } from './lib/shell.js';
import { screens } from './screens/registry.js';

startShell({
  name: 'agent console',
  info: '/api/v1/console',
  screens,
  home: '/jobs',
  signInTitle: 'Sign in to the agent console',
  listener: 'agent',
});
