// The DSL as users import it: by the package name `tessera-runtime/workflow` (package.json exports).
import { workflow, type WorkflowSpec } from 'tessera-runtime/workflow';
import { describe, expect, it } from 'vitest';
import { validateSpec } from '../../../plugins/workflow/validate.js';
import { seedExample } from './fixtures.js';

describe('the fluent DSL (tessera-runtime/workflow)', () => {
  it('builds the JSON of the seed example exactly', () => {
    const built: WorkflowSpec = workflow('orders')
      .route('POST', '/orders')
      .searchFields(['customer'])
      .tags(['demo'])
      .map({ customer: '{{input.customer}}', tenant: '{{attrs.tenant}}', at: '{{now}}' }, { id: 'enrich' })
      .when('{{input.amount}} > 100', (w) => w.map({ review: true }, { id: 'flag' }), { id: 'big' })
      .fanOut([(b) => b.mock({ price: 10 }, 20, { id: 'a' }), (b) => b.mock({ price: 12 }, 30, { id: 'b' })], { id: 'quotes' })
      .join('merge', { id: 'best' })
      .branch([['{{input.amount}} > 1000', (w) => w]], undefined, { id: 'route' })
      .toJSON();
    expect(built).toEqual(seedExample());
    expect(validateSpec(built)).toMatchObject({ valid: true, errors: [] });
  });

  it('generates unique ids, keeps app options apart from the spec, and refuses a join without a fanOut', () => {
    const inject = (r: { headers: Headers }) => ({ tenant: r.headers.get('x-tenant-id') ?? 'acme' });
    const b = workflow('quote')
      .map({ a: 1 })
      .fanOut([(x) => x.map({ b: 2 }), (x) => x.mock({ c: 3 })])
      .join('array')
      .app({ searchFields: ['customer'], inject });
    const spec = b.toJSON();
    expect(spec.route).toEqual({ method: 'POST', path: '/quote' });
    expect(spec.searchFields).toEqual(['customer']);
    expect(spec.steps.map((s) => s.id)).toEqual(['map1', 'fanOut2']);
    expect(spec.steps[1]!.branches!.map((br) => br.map((s) => s.id))).toEqual([['fanOut2_b0_map1'], ['fanOut2_b1_mock1']]);
    expect(spec.steps[1]!.join).toEqual({ id: 'fanOut2_join', kind: 'array', config: {} });
    expect(JSON.stringify(spec)).not.toContain('inject');
    expect(b.options.inject).toBe(inject);
    expect(validateSpec(spec).valid).toBe(true);
    expect(() => workflow('x').map({}).join('merge')).toThrow('join() must follow fanOut()');
  });
});
