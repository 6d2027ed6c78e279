import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../runtime/store.js';
import { tempDir } from '../helpers/app.js';

describe('ctx.store.forTenant', () => {
  const store = Store.open(tempDir());
  const ns = store.namespace('notes');
  afterAll(() => store.close());

  it("keeps each tenant's entries to itself under the same keys, in one named database", async () => {
    const acme = ns.forTenant('acme').db<string, string>('notes');
    const globex = ns.forTenant('globex').db<string, string>('notes');
    await acme.put('1', 'acme one');
    await acme.put('2', 'acme two');
    await globex.put('1', 'globex one');
    await ns.forTenant('acme-east').db<string, string>('notes').put('0', 'a tenant whose name extends another');
    expect(acme.get('1')).toBe('acme one');
    expect(globex.get('1')).toBe('globex one');
    expect(globex.get('2')).toBeUndefined();
    expect(globex.doesExist('2')).toBe(false);
    expect([...acme.getRange()]).toEqual([
      { key: '1', value: 'acme one' },
      { key: '2', value: 'acme two' },
    ]);
    expect([...acme.getRange({ reverse: true, limit: 1 })]).toEqual([{ key: '2', value: 'acme two' }]);
    expect(acme.getCount()).toBe(2);
    expect(globex.getCount()).toBe(1);
    await globex.remove('1');
    expect(acme.get('1')).toBe('acme one');
    // The plugin-wide database holds the tenant in front of each key.
    expect(ns.db('notes').get(['acme', '2'])).toBe('acme two');
  });

  it('takes array keys and ranges inside the view', async () => {
    const docs = ns.forTenant('acme').db<number, [string, number]>('docs');
    for (let i = 0; i < 5; i++) await docs.put(['index-a', i], i);
    await docs.put(['index-b', 0], 100);
    await ns.forTenant('other').db<number, [string, number]>('docs').put(['index-a', 2], -1);
    expect([...docs.getRange({ start: ['index-a', 1], end: ['index-a', 4] })].map((e) => e.key)).toEqual([
      ['index-a', 1],
      ['index-a', 2],
      ['index-a', 3],
    ]);
    expect(docs.get(['index-a', 2])).toBe(2);
    expect(docs.getCount()).toBe(6);
  });

  it('refuses an empty tenant id or one with NUL', () => {
    expect(() => ns.forTenant('').db('notes')).toThrow('Invalid tenant id ""');
    expect(() => ns.forTenant('a\u0000b').db('notes')).toThrow('Invalid tenant id');
  });
});
