import { execFile } from 'node:child_process';
import { writeFileSync, rmSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { cliPath } from '../../helpers/cli.js';

/** The built CLI, run asynchronously: the server answering it lives in this process. */
function tessera(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args], { cwd, env: { ...process.env, TESSERA_API_KEY: '' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('tessera plan and tessera apply against a running server', () => {
  let t: TestApp;
  let dir: string;
  let url: string;
  const write = (name: string, value: unknown): string => {
    writeFileSync(path.join(dir, name), JSON.stringify(value));
    return name;
  };

  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    url = t.url();
    dir = tempDir('tessera-plan-cli-');
    await postJson(`${url}/v1/indexes`, { name: 'legacy', mappings: { text: { type: 'text' } } });
    await postJson(`${url}/v1/indexes/legacy/documents`, [{ id: 'l1', text: 'old' }]);
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the plan, saves it with --out, applies the saved plan, and then finds nothing to do', async () => {
    const spec = write('spec.json', {
      version: '1',
      indexes: [
        { name: 'books', mappings: { title: { type: 'text', analyzer: 'english' } }, settings: { defaultOperator: 'AND' } },
        { name: 'legacy', mappings: { text: { type: 'text' }, tags: { type: 'keyword' } } },
      ],
    });
    const planned = await tessera(['plan', spec, '--url', url, '--out', 'plan.json'], dir);
    expect(planned).toMatchObject({ code: 0, stderr: '' });
    expect(planned.stdout).toContain('  + create_index books');
    expect(planned.stdout).toContain('  + add_field legacy.mappings.tags  (re-index)');
    expect(planned.stdout).toMatch(/2 steps, 0 destructive\. Plan hash [0-9a-f]{64}/);
    const saved = JSON.parse(readFileSync(path.join(dir, 'plan.json'), 'utf8'));
    expect(saved.plan.map((s: { action: string }) => s.action)).toEqual(['create_index', 'add_field']);

    const applied = await tessera(['apply', 'plan.json', '--url', url], dir);
    expect(applied).toMatchObject({ code: 0, stdout: 'Applied 2 steps; documents lost: 0.\n' });
    expect((await json(await fetch(`${url}/v1/indexes/books`))).index.settings.defaultOperator).toBe('AND');

    // The saved plan no longer matches the indexes: refused, nothing done.
    const again = await tessera(['apply', 'plan.json', '--url', url], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('409 plan_stale');
    expect((await tessera(['plan', spec, '--url', url], dir)).stdout).toBe('No changes: the indexes match the spec.\n');
  });

  it('applies a spec directly, refusing destructive steps unless --allow-destructive', async () => {
    const spec = write('smaller.json', { version: '2', indexes: [{ name: 'books', mappings: { title: { type: 'text', analyzer: 'english' } } }] });
    const refused = await tessera(['apply', spec, '--url', url], dir);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('  - delete_index legacy  (DESTRUCTIVE)');
    expect(refused.stderr).toContain('409 destructive_change');
    expect((await fetch(`${url}/v1/indexes/legacy`)).status).toBe(200);

    const done = await tessera(['apply', spec, '--url', url, '--allow-destructive'], dir);
    expect(done.code).toBe(0);
    expect((await fetch(`${url}/v1/indexes/legacy`)).status).toBe(404);
  });

  it('exits 1 naming the problem for an invalid spec or an unreachable server, and 2 without a file', async () => {
    const bad = await tessera(['plan', write('bad.json', { indexes: [{ name: 'x', mappings: { a: { type: 'nope' } } }] }), '--url', url], dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('400 validation_failed');
    const away = await tessera(['plan', 'bad.json', '--url', 'http://127.0.0.1:9'], dir);
    expect(away.code).toBe(1);
    expect(away.stderr).toContain('cannot reach http://127.0.0.1:9');
    const usage = await tessera(['plan'], dir);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('"plan" needs <spec.json>');
  });
});
