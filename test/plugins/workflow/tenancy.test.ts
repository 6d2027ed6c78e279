import { tenancyConformance } from 'tessera-runtime/testing';

// Workflows belong to the tenant that registered them. Their HTTP routes share the listener's one
// route space, so each tenant's workflow here takes a route of its own (a route taken by another
// tenant is a 409 route_conflict, docs/workflow.md); the workflow records themselves are private.
tenancyConformance('workflow', { manifest: { listeners: [{ name: 'wf', port: 0, plugins: ['workflow'] }], plugins: { workflow: {} } }, listener: 'wf' }, [
  {
    name: 'workflow',
    create: async (c, label) => {
      const spec = {
        name: label,
        route: { method: 'POST', path: `/${c.tenant}/${label}` },
        steps: [{ id: 'm', kind: 'map', config: { set: { v: '{{input.v}}' } } }],
      };
      const created = await c.call('POST', '/hub/workflows', spec);
      if (created.status !== 201) throw new Error(JSON.stringify(created.body));
      return label;
    },
    // There is no GET by id: a workflow is readable when its tenant's list has it.
    read: async (c, id) => {
      const list = await c.call('GET', '/hub/workflows');
      const found = list.body.workflows?.find((w: { id: string }) => w.id === id);
      return found ? { status: 200, body: found } : { status: 404 };
    },
    list: async (c) => (await c.call('GET', '/hub/workflows')).body.workflows.map((w: { id: string }) => w.id),
    update: (c, id) =>
      c.call('PUT', `/hub/workflows/${id}`, {
        name: id,
        route: { method: 'POST', path: `/${c.tenant}/${id}` },
        steps: [{ id: 'm', kind: 'map', config: { set: { w: 1 } } }],
      }),
    remove: (c, id) => c.call('DELETE', `/hub/workflows/${id}`),
  },
]);
