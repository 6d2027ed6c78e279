import { tenancyConformance } from 'tessera-runtime/testing';
import { fixturesDir } from '../helpers/app.js';

// The runtime's tenant views (ctx.jobs.tenant, ctx.events.forTenant) as a plugin's routes use them.
tenancyConformance(
  'jobs and schedules of a plugin',
  { manifest: { listeners: [{ name: 'main', port: 0, plugins: ['worker'] }], plugins: { worker: { module: './plugins/worker/index.js' } } }, dir: fixturesDir },
  [
    {
      name: 'job',
      create: async (c) => (await c.call('POST', '/jobs', { name: 'sleep', input: { ms: 5 } })).body.job.id,
      read: (c, id) => c.call('GET', `/jobs/${id}`),
      list: async (c) => (await c.call('GET', '/jobs?limit=1000')).body.jobs.map((j: { id: string }) => j.id),
      remove: (c, id) => c.call('POST', `/jobs/${id}/cancel`),
    },
    {
      name: 'schedule',
      create: async (c, label) => (await c.call('POST', '/schedules', { id: label, spec: { interval: '1h' }, jobName: 'tick' })).body.schedule.id,
      read: (c, id) => c.call('GET', `/schedules/${id}`),
      list: async (c) => (await c.call('GET', '/schedules')).body.schedules.map((s: { id: string }) => s.id),
      update: (c, id) => c.call('PATCH', `/schedules/${id}`, { paused: true }),
      remove: (c, id) => c.call('DELETE', `/schedules/${id}`),
    },
  ],
);
