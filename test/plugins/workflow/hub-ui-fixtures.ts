/** Workflows the hub UI's browser tests drive. */
export const xss = '<img src=x onerror="window.__xss=1">';

export const orders = {
  name: 'orders',
  version: '1',
  description: `Orders ${xss}<script>window.__xss=2</script>`,
  route: { method: 'POST', path: '/orders' },
  searchFields: ['customer'],
  tags: ['shop', xss],
  steps: [
    { id: 'normalise', kind: 'map', config: { set: { customer: '{{input.customer}}', amount: '{{input.amount}}' } } },
    {
      id: 'lookup',
      kind: 'fanOut',
      branches: [
        [{ id: 'credit', kind: 'mock', config: { response: { credit: 'ok' }, delayMs: 60 } }],
        [
          { id: 'stock', kind: 'mock', config: { response: { stock: 3 }, delayMs: 25 } },
          { id: 'reserve', kind: 'mock', config: { response: { reserved: true }, delayMs: 15, mergeInput: true } },
        ],
      ],
      join: { id: 'combine', kind: 'merge' },
    },
    {
      id: 'big',
      kind: 'when',
      config: { condition: '{{input.amount}} > 100' },
      steps: [{ id: 'flag', kind: 'map', config: { set: { review: true }, mergeInput: true } }],
    },
    {
      id: 'triage',
      kind: 'branch',
      config: {
        cases: [{ when: '{{input.amount}} > 1000', steps: [{ id: 'manual', kind: 'map', config: { set: { queue: 'manual' }, mergeInput: true } }] }],
        default: [{ id: 'auto', kind: 'map', config: { set: { queue: 'auto' }, mergeInput: true } }],
      },
    },
  ],
};

export const ping = {
  name: 'ping',
  version: '1',
  route: { method: 'GET', path: '/ping' },
  tags: [],
  steps: [{ id: 'pong', kind: 'map', config: { set: { pong: true } } }],
};
