// The screens of the control plane, in navigation order. A screen is shown when the plugin it
// needs is served by some listener of the deployment (`requires`), so a deployment without a
// crawler has no Crawls screen. Screens for back ends still being built are absent: add them here
// (path, title, the plugin that serves their API, and a lazy import) when their API lands.
export const screens = [
  { path: '/fleet', title: 'Fleet', requires: null, load: () => import('./fleet.js') },
  { path: '/indexes', title: 'Indexes', requires: 'search', load: () => import('./indexes.js') },
  { path: '/indexes/:name', requires: 'search', load: () => import('./index-detail.js') },
  { path: '/indexes/:name/documents', requires: 'search', load: () => import('./documents.js') },
  { path: '/search', title: 'Search', requires: 'search', load: () => import('./search.js') },
  { path: '/crawls', title: 'Crawls', requires: 'crawler', load: () => import('./crawls.js') },
  { path: '/scans', title: 'Scans', requires: 'scanner', load: () => import('./scans.js') },
  { path: '/keys', title: 'Keys', requires: 'rbac', load: () => import('./keys.js') },
];
