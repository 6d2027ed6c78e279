import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from 'tessera-runtime/testing';
import { fixturesDir, tempDir } from '../helpers/app.js';

const promtool = spawnSync('promtool', ['--version']).status === 0 ? 'promtool' : undefined;

describe('Prometheus metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No port: the requests go through the listener pipeline, which is what the metrics observe.
    t = await createTestApp({ plugins: [], manifest: { plugins: { kitchen: { module: './plugins/kitchen/index.js' } } }, dir: fixturesDir });
    await t.fetch('/kv/alpha');
    await t.fetch('/kv/beta');
    await t.fetch('/nowhere');
  });
  afterAll(() => t.close());

  it('counts requests by route pattern, not raw path, and by status', async () => {
    const text = await (await t.fetch('/metrics')).text();
    expect(text).toContain('tessera_http_requests_total{listener="main",method="GET",route="/kv/:key",status="404"} 2');
    expect(text).toContain('tessera_http_requests_total{listener="main",method="GET",route="(unmatched)",status="404"} 1');
    expect(text).not.toContain('/kv/alpha');
    expect(text).toMatch(/tessera_http_request_duration_seconds_bucket\{le="0.005",listener="main",method="GET",route="\/kv\/:key",status="404"\} \d/);
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toMatch(/tessera_store_size_bytes \d+/);
    expect(text).toContain('tessera_throttle_queue_depth{listener="main",tier="heavy"} 0');
  });

  it.skipIf(!promtool)('passes promtool check metrics', async () => {
    const text = await (await t.fetch('/metrics')).text();
    const file = path.join(tempDir(), 'metrics.txt');
    writeFileSync(file, text);
    const out = execFileSync('sh', ['-c', `promtool check metrics < ${file} 2>&1; echo "exit=$?"`], { encoding: 'utf8' });
    expect(out.trim()).toBe('exit=0');
  });

  it.runIf(!promtool)('skips promtool: install it with `apt-get install -y --no-install-recommends prometheus` (.ci/run does)', () => {
    expect(promtool).toBeUndefined();
  });
});
