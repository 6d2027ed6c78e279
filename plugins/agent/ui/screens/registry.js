// The screens of the agent console, in navigation order: path, title (none for a screen reached
// from another), and a lazy import.
export const screens = [
  { path: '/jobs', title: 'Jobs', load: () => import('./jobs.js') },
  { path: '/jobs/:id', load: () => import('./job-detail.js') },
  { path: '/questions', title: 'Clarifying questions', load: () => import('./questions.js') },
  { path: '/review', title: 'Review', load: () => import('./review.js') },
  { path: '/models', title: 'Models', load: () => import('./models.js') },
  { path: '/operations', title: 'Operations', load: () => import('./operations.js') },
];
