/**
 * The workflow platform's benchmark (issue 17):
 *   npm run bench:workflow               (in-process engine, then 10 s of HTTP load per driver, 2 rounds)
 *   npm run bench:workflow -- --quick    (3 s, 1 round)
 * In-process: engine overhead per step on a 10-step `map` chain (p50, p99), and each storage
 * driver's CPU time per execution written (bench/workflow/storage.ts). Over HTTP: autocannon
 * against `tessera serve --workflows` in its own process, a 3-step workflow route with every
 * execution and its timeline persisted, on LMDB (default) and on SQLite (`--db-path`).
 * The same run loads the runtime's echo route (bench/http: same pipeline, JSON body, no engine and
 * no store write) as the in-run baseline, so the ratio holds on a busy machine; each measurement
 * also reports the server's CPU time per request (/proc, its threads included).
 * Prints one JSON line per measurement and a summary line; the table lives in bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowSpec } from '../../plugins/workflow/spec.js';
import autocannon from 'autocannon';
import { timeChain } from './engine.js';
import { timeStorage } from './storage.js';

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

// In-process storage cost per execution, each driver (bench/workflow/storage.ts): rounds alternate
// the order; the median is reported.
const storageRounds = quick ? 1 : 3;
const storageCpu: Record<'lmdb' | 'sqlite', number[]> = { lmdb: [], sqlite: [] };
for (let round = 1; round <= storageRounds; round++) {
  for (const driver of round % 2 === 1 ? (['lmdb', 'sqlite'] as const) : (['sqlite', 'lmdb'] as const)) {
    const r = await timeStorage(driver, spec as unknown as Pick<WorkflowSpec, 'steps'>, quick ? 5_000 : 20_000);
    storageCpu[driver].push(r.cpuUsPerExecution);
    emit({
      part: 'storage',
      round,
      driver,
      cpuUsPerExecution: round2(r.cpuUsPerExecution),
      wallUsPerExecution: round2(r.wallUsPerExecution),
      stored: r.stored,
    });
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The echo route's schema (bench/http): a body of about the same size. */
const echoBody = JSON.stringify({ name: 'ann', count: 150, tags: ['a'] });

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

/** The runtime with the echo plugin (bench/http/server.ts): the baseline. */
async function startEcho(): Promise<Server> {
  const file = fileURLToPath(new URL('../http/server.js', import.meta.url));
  const child = spawn(process.execPath, [file, 'tessera'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TESSERA_LOG_LEVEL: 'info' } });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /\{"port":(\d+)\}/.exec(buffered);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`echo server exited with ${code}: ${buffered}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, key: '', dir: '' };
}

/** CPU seconds (user + system, every thread) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.on('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  if (server.dir) rmSync(server.dir, { recursive: true, force: true });
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

async function load(url: string, seconds: number, route = '/q3', payload = body) {
  const r = await autocannon({
    url: `${url}${route}`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: payload,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
}

const totals: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? (['echo', 'lmdb', 'sqlite'] as const) : (['sqlite', 'lmdb', 'echo'] as const);
  for (const kind of order) {
    if (kind === 'echo') {
      const server = await startEcho();
      try {
        const echo = (await (
          await fetch(`${server.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: echoBody })
        ).json()) as {
          ok?: boolean;
        };
        if (echo.ok !== true) throw new Error(`echo answered ${JSON.stringify(echo)}`);
        await load(server.url, 1, '/echo', echoBody);
        const c0 = cpuSeconds(server.child.pid!);
        const r = await load(server.url, duration, '/echo', echoBody);
        const cpuUs = ((cpuSeconds(server.child.pid!) - c0) / r.total) * 1e6;
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`echo: ${r.non2xx} non-2xx, ${r.errors} errors`);
        (totals.echo ??= []).push(r.rps);
        (cpu.echo ??= []).push(cpuUs);
        emit({ part: 'http', round, server: 'runtime-echo', connections, durationS: duration, ...r, serverCpuUsPerRequest: Math.round(cpuUs) });
      } finally {
        await stopServer(server);
      }
      continue;
    }
    const driver = kind;
    const server = await startServer(driver);
    try {
      await check(server, driver);
      await load(server.url, 1);
      const before = (await hub(server, '/hub/metrics')) as { storedExecutions: number };
      const c0 = cpuSeconds(server.child.pid!);
      const r = await load(server.url, duration);
      const cpuUs = ((cpuSeconds(server.child.pid!) - c0) / r.total) * 1e6;
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${driver}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const after = (await hub(server, '/hub/metrics')) as { storedExecutions: number; storeBytes: number };
      (totals[driver] ??= []).push(r.rps);
      (cpu[driver] ??= []).push(cpuUs);
      emit({
        part: 'http',
        round,
        server: `workflow-${driver}`,
        connections,
        durationS: duration,
        ...r,
        serverCpuUsPerRequest: Math.round(cpuUs),
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
const echoRps = Math.round(mean(totals.echo!));
const lmdb = Math.round(mean(totals.lmdb!));
const sqlite = Math.round(mean(totals.sqlite!));
// Peers' documented figures (not runnable here): n8n up to 220 executions/s on one instance,
// Hatchet 2,000 runs/s on an 8-CPU database server.
emit({
  summary: {
    ...engine,
    engineTargetUs: 1000,
    echoRps,
    lmdbRps: lmdb,
    sqliteRps: sqlite,
    lmdbVsEcho: round2(lmdb / echoRps),
    sqliteVsEcho: round2(sqlite / echoRps),
    echoCpuUs: Math.round(mean(cpu.echo!)),
    lmdbCpuUs: Math.round(mean(cpu.lmdb!)),
    sqliteCpuUs: Math.round(mean(cpu.sqlite!)),
    storageLmdbCpuUs: round2(median(storageCpu.lmdb)),
    storageSqliteCpuUs: round2(median(storageCpu.sqlite)),
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
