// The control plane (3849) on the kit's shell: a screen shows when a listener serves its plugin.
import { request, serves, setFleet } from './lib/api.js';
import { startShell } from './lib/shell.js';
import { screens } from './screens/registry.js';

startShell({
  name: 'control plane',
  brand: (session) => session.name,
  info: '/api/console',
  screens,
  visible: (screen) => screen.requires === null || serves(screen.requires),
  home: '/fleet',
  signInTitle: 'Sign in to Tessera',
  listener: "control plane's",
  prepare: async (info) => {
    const system = await request('/v1/system');
    setFleet(system, info.listener);
    return { system };
  },
});
