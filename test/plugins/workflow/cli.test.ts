import { cpSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from '../../helpers/cli.js';
import { adminKey, cli, dslModule, listening, post, project, seed, write } from './cli-support.js';

// Seed 001's CLI table, through the built CLI in child processes.
describe('tessera workflow commands', () => {
  const running: CliProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const p of running.splice(0)) p.child.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const dir = (): string => {
    const d = project();
    dirs.push(d);
    return d;
  };

  it('validate: exit 0 for valid specs, 1 with JSON-path messages for invalid ones, 2 for bad usage', () => {
    const d = dir();
    write(d, 'flows/orders.json', seed());
    write(d, 'flows/quote.mjs', dslModule);
    const ok = cli(['validate', 'flows'], d);
    expect(ok).toMatchObject({ status: 0, stderr: '' });
    expect(ok.stdout).toBe('flows/orders.json: valid (orders, POST /orders)\nflows/quote.mjs: valid (quote, POST /quote)\n2 workflow files valid\n');

    const bad = seed();
    const steps = bad.steps as Array<Record<string, any>>;
    bad.name = 'bad';
    steps[1]!.config.condition = '{{input.amount}} >';
    steps[0]!.config.set.who = '{{steps.later.x}}';
    steps.push({ id: 'enrich', kind: 'map', config: { set: {} } });
    write(d, 'bad.json', bad);
    const invalid = cli(['validate', 'bad.json'], d);
    expect(invalid.status).toBe(1);
    expect(invalid.stdout).toBe('');
    const lines = invalid.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe(`${lines.length - 1} errors in 1 of 1 file`);
    expect(lines.slice(0, -1).every((l) => /^bad\.json: \$(\.[a-z]+|\[\d+\])+: \S/i.test(l))).toBe(true);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.json: \$\.steps\[0\]\.config\.set\.who: .*later/),
        expect.stringMatching(/^bad\.json: \$\.steps\[1\]\.config\.condition: /),
        expect.stringMatching(/^bad\.json: \$\.steps\[4\]\.id: .*enrich/),
      ]),
    );

    // Two files of one set on one route collide; JSON output names each file.
    write(d, 'clash/a.json', seed());
    write(d, 'clash/b.json', { ...seed(), name: 'orders2' });
    const clash = cli(['validate', '--json', 'clash'], d);
    expect(clash.status).toBe(1);
    expect(JSON.parse(clash.stdout)).toEqual({
      valid: false,
      files: [
        { file: 'clash/a.json', valid: true, workflow: { name: 'orders', route: 'POST /orders' }, errors: [] },
        {
          file: 'clash/b.json',
          valid: false,
          workflow: { name: 'orders2', route: 'POST /orders' },
          errors: [{ path: '$.route', message: 'POST /orders is already served by workflow "orders"' }],
        },
      ],
    });

    write(d, 'broken.json', '{"name": ');
    const broken = cli(['validate', 'broken.json', 'missing.json'], d);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/^broken\.json: \$: not valid JSON: .+\nmissing\.json: \$: no such file or directory\n2 errors in 2 of 2 files\n$/);

    expect(cli(['validate'], d)).toMatchObject({ status: 2, stderr: expect.stringContaining('tessera: "validate" needs <file>...') });
    expect(cli(['validate', 'x.json', '--mode', 'compare'], d)).toMatchObject({ status: 2, stderr: expect.stringContaining('Unknown option "--mode"') });
  });

  it('serve --workflows: JSON specs and DSL modules answer on the port, with the hub, the DSL inject and a hub export that runs', async () => {
    const d = dir();
    write(d, 'flows/orders.json', seed());
    write(d, 'flows/quote.mjs', dslModule);
    const p = runCli(['serve', '--workflows', 'flows', '--port', '0'], { cwd: d });
    running.push(p);
    const url = await listening(p);
    const key = await adminKey(p);

    const orders = await post(`${url}/orders`, { customer: 'ann', amount: 150 }, { 'x-tenant-id': 'north' });
    expect(orders.status).toBe(200);
    expect(orders.body).toEqual({ customer: 'ann', amount: 150, tenant: 'north', at: expect.any(String), review: true, price: 12 });
    expect(Date.now() - Date.parse(orders.body.at)).toBeLessThan(60_000);

    // The module's inject: the default tenant is acme, and x-channel lands in attrs.channel.
    const quote = await post(`${url}/quote`, { customer: 'bo', amount: 5 }, { 'x-channel': 'api' });
    expect(quote.status).toBe(200);
    expect(quote.body).toEqual({ customer: 'bo', amount: 5, tenant: 'acme', channel: 'api', price: 12 });

    const list = (await (await fetch(`${url}/hub/workflows`, { headers: { 'x-api-key': key } })).json()) as any;
    expect(list.workflows.map((w: any) => [w.id, w.source, `${w.route.method} ${w.route.path}`]).sort()).toEqual([
      ['orders', 'file', 'POST /orders'],
      ['quote', 'file', 'POST /quote'],
    ]);
    const trace = (await (await fetch(`${url}/hub/traces/${quote.execution}`, { headers: { 'x-api-key': key } })).json()) as any;
    expect(trace.trace).toMatchObject({ workflow: 'quote', status: 'completed', fields: { customer: 'bo' } });
    expect((await fetch(`${url}/health`)).status).toBe(200);

    // The hub's export, written out and started in a child process by its own start script.
    const exported = await fetch(`${url}/hub/deploy/export`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hub-shop', ids: ['orders'] }),
    });
    expect(exported.status).toBe(200);
    const { bundle } = (await exported.json()) as { bundle: { files: Record<string, string> } };
    const b = dir();
    for (const [rel, content] of Object.entries(bundle.files)) write(b, rel, content);
    const start = JSON.parse(bundle.files['package.json']!).scripts.start as string;
    expect(start).toBe('tessera serve --workflows workflows --port 8787');
    const served = runCli([...start.split(' ').slice(1), '--port', '0'], { cwd: b });
    running.push(served);
    const bundled = await post(`${await listening(served)}/orders`, { customer: 'cy', amount: 150 }, { 'x-tenant-id': 'south' });
    expect(bundled.status).toBe(200);
    expect(bundled.body).toEqual({ customer: 'cy', amount: 150, tenant: 'south', at: expect.any(String), review: true, price: 12 });

    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('serve --workflows: an invalid file stops the start with exit 1; bad options exit 2', async () => {
    const d = dir();
    write(d, 'flows/bad.json', { ...seed(), steps: [{ id: 'x', kind: 'nope' }] });
    const p = runCli(['serve', '--workflows', 'flows', '--port', '0'], { cwd: d });
    running.push(p);
    expect((await p.exited).code).toBe(1);
    expect(p.stderr()).toMatch(/flows\/bad\.json: \$\.steps\[0\]\.kind: /);
    expect(cli(['serve', '--workflows', 'flows', '--port', 'eighty'], d)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--port must be an integer from 0 to 65535, not "eighty"'),
    });
    expect(cli(['serve', '--manifest', 'm.json', '--port', '1'], d)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--port is an option of "serve --workflows", not of "serve"'),
    });
  });

  it('test --mode compare: exit 0 when outputs match, 1 with a structural diff; record writes the expectation', () => {
    const d = dir();
    write(d, 'flows/orders.json', seed());
    const ignore = ['$.at'];
    write(d, 'flows/orders.test.json', [
      {
        name: 'small order',
        workflow: 'orders',
        input: { customer: 'ann', amount: 5 },
        expected: { customer: 'ann', amount: 5, tenant: 'default', price: 12 },
        ignore,
      },
      {
        name: 'pinned quote',
        workflow: 'orders',
        input: { customer: 'bo', amount: 500 },
        attrs: { tenant: 't1' },
        fixtures: { b: { price: 7 } },
        expected: { customer: 'bo', amount: 500, tenant: 't1', review: true, price: 7 },
        ignore,
      },
    ]);
    const pass = cli(['test', '--workflows', 'flows', '--mode', 'compare'], d);
    expect(pass.status).toBe(0);
    expect(pass.stdout).toMatch(
      /^PASS flows\/orders\.test\.json > small order \(\d+ ms\)\nPASS flows\/orders\.test\.json > pinned quote \(\d+ ms\)\nTests: 2 passed, 2 total\n$/,
    );

    write(d, 'flows/regress.test.json', {
      workflow: 'orders',
      input: { customer: 'cy', amount: 150 },
      expected: { customer: 'cy', amount: 150, tenant: 'default', price: 10, extra: 1 },
      ignore,
    });
    const fail = cli(['test', '--workflows', 'flows', '--mode', 'compare', '--json'], d);
    expect(fail.status).toBe(1);
    const report = JSON.parse(fail.stdout);
    expect(report).toMatchObject({ mode: 'compare', passed: 2, failed: 1, errors: 0 });
    expect(report.results[2]).toMatchObject({ file: 'flows/regress.test.json', name: 'regress', status: 'failed' });
    expect(report.results[2].diff).toEqual([
      { path: '$.price', expected: 10, actual: 12, kind: 'changed' },
      { path: '$.extra', expected: 1, kind: 'missing' },
      { path: '$.review', actual: true, kind: 'unexpected' },
    ]);
    const text = cli(['test', '--workflows', 'flows'], d);
    expect(text.status).toBe(1);
    expect(text.stderr).toContain('FAIL flows/regress.test.json > regress');
    expect(text.stderr).toContain('    $.price: expected 10, got 12 (changed)\n    $.extra: expected 1, got (absent) (missing)\n');
    expect(text.stderr).toMatch(/Tests: 1 failed, 2 passed, 3 total\n$/);

    // A test without an expectation fails in compare and is written by record; compare then passes.
    write(d, 'flows/regress.test.json', { workflow: 'orders', input: { customer: 'cy', amount: 150 }, ignore });
    const missing = cli(['test', '--workflows', 'flows'], d);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no_expected_output: the test has no "expected" output yet: run with --mode record to write it');
    const record = cli(['test', '--workflows', 'flows', '--mode', 'record'], d);
    expect(record.status).toBe(0);
    expect(record.stdout).toMatch(/RECORDED flows\/regress\.test\.json > regress/);
    const written = JSON.parse(readFileSync(path.join(d, 'flows/regress.test.json'), 'utf8'));
    expect(written).toEqual({
      workflow: 'orders',
      input: { customer: 'cy', amount: 150 },
      ignore,
      expected: expect.objectContaining({ customer: 'cy', review: true, price: 12 }),
    });
    expect(cli(['test', '--workflows', 'flows'], d).status).toBe(0);

    expect(cli(['test', '--workflows', 'flows', '--mode', 'snapshot'], d)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--mode is compare or record, not "snapshot"'),
    });
    write(d, 'empty/orders.json', seed());
    expect(cli(['test', '--workflows', 'empty'], d)).toMatchObject({ status: 1, stderr: expect.stringContaining('no *.test.json files') });
    expect(cli(['test', '--workflows', 'empty', '--pass-with-no-tests'], d).status).toBe(0);
  });

  it('export: writes a bundle whose start script serves the workflows (a route answers) and whose test script passes', async () => {
    const d = dir();
    write(d, 'flows/orders.json', seed());
    write(d, 'flows/quote.mjs', dslModule);
    write(d, 'flows/orders.test.json', {
      name: 'small',
      workflow: 'orders',
      input: { customer: 'ann', amount: 5 },
      expected: { customer: 'ann', amount: 5, tenant: 'default', price: 12 },
      ignore: ['$.at'],
    });
    const out = cli(['export', '--out', 'bundle', '--workflows', 'flows', '--name', 'shop'], d);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^Wrote 6 files to bundle \(bundle shop, sha256 [0-9a-f]{12}\): orders, quote\n/);
    expect(out.stdout).toContain('the inject functions of quote are code and are not exported');
    const bundle = path.join(d, 'bundle');
    const pkg = JSON.parse(readFileSync(path.join(bundle, 'package.json'), 'utf8'));
    expect(pkg.scripts.start).toBe('tessera serve --workflows workflows --port 8787');
    expect(JSON.parse(readFileSync(path.join(bundle, 'workflows/quote.json'), 'utf8')).route).toEqual({ method: 'POST', path: '/quote' });
    expect(cli(['export', '--out', 'bundle', '--workflows', 'flows'], d)).toMatchObject({ status: 1, stderr: expect.stringContaining('bundle is not empty') });

    // The bundle as installed: node_modules/tessera-runtime, then its scripts (the port made free for the test).
    rmSync(path.join(d, 'flows'), { recursive: true });
    const installed = project();
    dirs.push(installed);
    cpSync(bundle, installed, { recursive: true });
    const args = (script: string): string[] => {
      const [bin, ...rest] = script.split(' ');
      expect(bin).toBe('tessera');
      return rest;
    };
    expect(cli(args(pkg.scripts.test), installed)).toMatchObject({ status: 0, stdout: expect.stringContaining('Tests: 1 passed, 1 total') });
    expect(cli(args(pkg.scripts.validate), installed).status).toBe(0);
    const p = runCli([...args(pkg.scripts.start), '--port', '0'], { cwd: installed });
    running.push(p);
    const url = await listening(p);
    const quote = await post(`${url}/quote`, { customer: 'bo', amount: 500 });
    expect(quote.status).toBe(200);
    // The default inject supplies no channel: the template yields nothing and the key is absent.
    expect(quote.body).toEqual({ customer: 'bo', amount: 500, tenant: 'default', review: true, price: 12 });
    const orders = await post(`${url}/orders`, { customer: 'ann', amount: 5 });
    expect(orders.body).toMatchObject({ customer: 'ann', tenant: 'default', price: 12 });
  });
});
