// The screens of the control plane, in navigation order. A screen is shown when the plugin it
// needs is served by some listener of the deployment (`requires`), so a deployment without a
// crawler has no Crawls screen. A new screen is one line here: path, title, the plugin that
// serves its API, and a lazy import.
export const screens = [
  { path: '/fleet', title: 'Fleet', requires: null, load: () => import('./fleet.js') },
  { path: '/indexes', title: 'Indexes', requires: 'search', load: () => import('./indexes.js') },
  { path: '/indexes/:name', requires: 'search', load: () => import('./index-detail.js') },
  { path: '/indexes/:name/documents', requires: 'search', load: () => import('./documents.js') },
  { path: '/search', title: 'Search', requires: 'search', load: () => import('./search.js') },
  { path: '/autocomplete', title: 'Autocomplete', requires: 'search', load: () => import('./autocomplete.js') },
  { path: '/images', title: 'Image metadata', requires: 'search', load: () => import('./image-metadata.js') },
  { path: '/graph', title: 'Knowledge graph', requires: 'graph', load: () => import('./graph.js') },
  { path: '/config', title: 'Config plan', requires: 'search', load: () => import('./config-plan.js') },
  { path: '/crawls', title: 'Crawls', requires: 'crawler', load: () => import('./crawls.js') },
  { path: '/scans', title: 'Scans', requires: 'scanner', load: () => import('./scans.js') },
  { path: '/keys', title: 'Keys', requires: 'rbac', load: () => import('./keys.js') },
];
