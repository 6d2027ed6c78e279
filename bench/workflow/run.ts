/**
 * The workflow platform's benchmark (issue 17):
 *   npm run bench:workflow               (in-process engine, then 10 s of HTTP load per driver, 2 rounds)
 *   npm run bench:workflow -- --quick    (3 s, 1 round)
 * In-process: engine overhead per step on a 10-step `map` chain (p50, p99). Over HTTP: autocannon
 * against `tessera serve --workflows` in its own process, a 3-step workflow route with every
 * execution and its timeline persisted, on LMDB (default) and on SQLite (`--db-path`).
 * Prints one JSON line per measurement and a summary line; the table lives in bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { timeChain } from './engine.js';

const quick = process.argv.includes('--quick');
const duration = quick ? 3 : 10;
const rounds = quick ? 1 : 2;
const connections = 50;
const cli = fileURLToPath(new URL('../../../bin/tessera.js', import.meta.url));
const emit = (line: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify({ bench: 'workflow', ...line })}\n`);

// In-process: per-step overhead = execution time / steps; the marginal cost of a step from 1 vs 10 steps.
const iterations = quick ? 20_000 : 100_000;
const ten = await timeChain(10, iterations);
const one = await timeChain(1, iterations);
const engine = {
  perStepP50Us: round2(ten.p50Us / 10),
  perStepP99Us: round2(ten.p99Us / 10),
  marginalPerStepMeanUs: round2((ten.meanUs - one.meanUs) / 9),
  chain10P50Us: round2(ten.p50Us),
  chain10P99Us: round2(ten.p99Us),
};
emit({ part: 'engine', iterations, ...engine });

// Over HTTP.
const spec = {
  name: 'q3',
  route: { method: 'POST', path: '/q3' },
  searchFields: ['customer'],
  steps: [
    { id: 'enrich', kind: 'map', config: { set: { customer: '{{input.customer}}', tenant: '{{attrs.tenant}}', at: '{{now}}' }, mergeInput: true } },
    { id: 'quote', kind: 'mock', config: { response: { price: 12 }, mergeInput: true } },
    { id: 'flag', kind: 'map', config: { set: { review: '{{steps.quote.price}}' }, mergeInput: true } },
  ],
};
const body = JSON.stringify({ customer: 'ann', amount: 150 });

interface Server {
  child: ChildProcess;
  url: string;
  key: string;
  dir: string;
}

async function startServer(driver: 'lmdb' | 'sqlite'): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-wf-'));
  mkdirSync(path.join(dir, 'flows'));
  writeFileSync(path.join(dir, 'flows/q3.json'), JSON.stringify(spec));
  const args = [cli, 'serve', '--workflows', 'flows', '--port', '0', ...(driver === 'sqlite' ? ['--db-path', 'wf.db'] : [])];
  const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TESSERA_LOG_LEVEL: 'info' } });
  // Request log lines are read and dropped, as a collector would take them.
  let head = '';
  const found = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    let url = '';
    let key = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (url && key) return;
      head += chunk.toString();
      url ||= /"msg":"listening"/.test(head) ? (/"url":"([^"]+)"/.exec(head.slice(head.indexOf('"msg":"listening"') - 300))?.[1] ?? '') : '';
      key ||= /"apiKey":"([^"]+)"/.exec(head)?.[1] ?? '';
      if (url && key) resolve({ url, key });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${head}`)));
  });
  child.stderr!.resume();
  return { child, dir, ...found };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.on('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  rmSync(server.dir, { recursive: true, force: true });
}

async function hub(server: Server, p: string): Promise<any> {
  return (await fetch(`${server.url}${p}`, { headers: { 'x-api-key': server.key } })).json();
}

/** Nothing is timed unless the route answers right and its execution is persisted with its timeline. */
async function check(server: Server, driver: string): Promise<void> {
  const res = await fetch(`${server.url}/q3`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const out = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 || out.review !== 12 || out.tenant !== 'default') throw new Error(`${driver} /q3 answered ${res.status} ${JSON.stringify(out)}`);
  const { trace } = await hub(server, `/hub/traces/${res.headers.get('x-execution-id')}`);
  if (trace?.status !== 'completed' || trace.steps.length !== 3) throw new Error(`${driver}: the execution was not persisted: ${JSON.stringify(trace)}`);
}

async function load(url: string, seconds: number) {
  const r = await autocannon({ url: `${url}/q3`, connections, duration: seconds, method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
}

const totals: Record<string, number[]> = {};
for (let round = 1; round <= rounds; round++) {
  for (const driver of round % 2 === 1 ? (['lmdb', 'sqlite'] as const) : (['sqlite', 'lmdb'] as const)) {
    const server = await startServer(driver);
    try {
      await check(server, driver);
      await load(server.url, 1);
      const before = (await hub(server, '/hub/metrics')) as { storedExecutions: number };
      const r = await load(server.url, duration);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${driver}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const after = (await hub(server, '/hub/metrics')) as { storedExecutions: number; storeBytes: number };
      (totals[driver] ??= []).push(r.rps);
      emit({
        part: 'http',
        round,
        driver,
        connections,
        durationS: duration,
        ...r,
        storedBefore: before.storedExecutions,
        storedAfter: after.storedExecutions,
        storeBytes: after.storeBytes,
      });
    } finally {
      await stopServer(server);
    }
  }
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const lmdb = Math.round(mean(totals.lmdb!));
const sqlite = Math.round(mean(totals.sqlite!));
// Peers' documented figures (not runnable here): n8n up to 220 executions/s on one instance,
// Hatchet 2,000 runs/s on an 8-CPU database server.
emit({
  summary: {
    ...engine,
    engineTargetUs: 1000,
    lmdbRps: lmdb,
    sqliteRps: sqlite,
    targetRps: 2000,
    lmdbVsN8n: round2(lmdb / 220),
    lmdbVsHatchet: round2(lmdb / 2000),
    sqliteVsN8n: round2(sqlite / 220),
    sqliteVsHatchet: round2(sqlite / 2000),
  },
});

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
