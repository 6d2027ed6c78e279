// The hub's screens, in navigation order. `rbac: true` screens are shown only when rbac serves
// this listener (users, roles and keys are its routes). A new screen is one line here.
export const screens = [
  { path: '/workflows', title: 'Workflows', load: () => import('./workflows.js') },
  { path: '/workflows/:id', load: () => import('./workflow.js') },
  { path: '/traces', title: 'Traces', load: () => import('./traces.js') },
  { path: '/traces/:id', load: () => import('./trace.js') },
  { path: '/tests', title: 'Tests', load: () => import('./tests.js') },
  { path: '/deploy', title: 'Deploy', load: () => import('./deploy.js') },
  { path: '/access', title: 'Access', rbac: true, load: () => import('./access.js') },
  { path: '/metrics', title: 'Metrics', load: () => import('./metrics.js') },
];
