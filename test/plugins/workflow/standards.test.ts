import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { seedExample } from './fixtures.js';
import { startWorkflow, type WfApp } from './helpers.js';

const promtool = spawnSync('promtool', ['--version']).status === 0;

// Seed 001: /metrics valid per `promtool check metrics`, /openapi.json valid OpenAPI 3.1, with the
// workflow routes (and their executions) in them.
describe('the workflow listener against the standards its endpoints claim', () => {
  let w: WfApp;
  beforeAll(async () => {
    w = await startWorkflow();
    expect((await w.call('POST', '/hub/workflows', { body: seedExample() })).status).toBe(201);
    for (const amount of [5, 150]) {
      const res = await fetch(`${w.base}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': w.adminKey },
        body: JSON.stringify({ customer: 'ann', amount }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  });
  afterAll(() => w.stop());

  it('serves an OpenAPI document that validates as OpenAPI 3.1, workflow routes included', async () => {
    const doc = (await (await fetch(`${w.base}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.paths['/orders']).toBeDefined();
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it.skipIf(!promtool)('serves metrics that pass promtool check metrics, executions included', async () => {
    const text = await (await fetch(`${w.base}/metrics`)).text();
    expect(text).toMatch(/workflow/);
    const file = path.join(tempDir(), 'metrics.txt');
    writeFileSync(file, text);
    const out = execFileSync('sh', ['-c', `promtool check metrics < ${file} 2>&1; echo "exit=$?"`], { encoding: 'utf8' });
    expect(out.trim()).toBe('exit=0');
  });
});
