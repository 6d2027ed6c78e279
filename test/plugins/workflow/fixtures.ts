/** The seed's example workflow, as issue 17 writes it. */
export function seedExample(): Record<string, unknown> {
  return {
    name: 'orders',
    version: '1',
    route: { method: 'POST', path: '/orders' },
    searchFields: ['customer'],
    tags: ['demo'],
    steps: [
      { id: 'enrich', kind: 'map', config: { set: { customer: '{{input.customer}}', tenant: '{{attrs.tenant}}', at: '{{now}}' }, mergeInput: true } },
      {
        id: 'big',
        kind: 'when',
        config: { condition: '{{input.amount}} > 100' },
        steps: [{ id: 'flag', kind: 'map', config: { set: { review: true }, mergeInput: true } }],
      },
      {
        id: 'quotes',
        kind: 'fanOut',
        branches: [
          [{ id: 'a', kind: 'mock', config: { response: { price: 10 }, delayMs: 20 } }],
          [{ id: 'b', kind: 'mock', config: { response: { price: 12 }, delayMs: 30 } }],
        ],
        join: { id: 'best', kind: 'merge', config: {} },
      },
      { id: 'route', kind: 'branch', config: { cases: [{ when: '{{input.amount}} > 1000', steps: [] }], default: [] } },
    ],
  };
}
