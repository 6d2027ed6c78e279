/**
 * Scanner throughput, through the HTTP API of a real `tessera serve` process (search and scanner
 * on their listeners, as in the fleet manifest), with the server's peak RSS:
 *   - folder scan of a 20,000-file tree: the first scan, then a rescan with nothing changed;
 *   - file scan of WordNet's 117,791 glosses as JSONL and as CSV (../shared/data);
 *   - database scan of 200,000 PostgreSQL rows (TESSERA_BENCH_POSTGRES_URL, default the .ci/run
 *     cluster on 127.0.0.1:55432; skipped with a note when it is not reachable).
 *   npm run bench:scanner               (all)
 *   npm run bench:scanner -- --quick    (5,000 files, 50,000 rows)
 * Prints one JSON line per measurement; the table lives in bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import knex from 'knex';

const quick = process.argv.includes('--quick');
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const wordnet = path.join(repo, '..', 'shared', 'data', 'corpus', 'wordnet_glosses.jsonl.gz');
const pgUrl = process.env.TESSERA_BENCH_POSTGRES_URL ?? 'postgres://postgres:tessera-pg-secret@127.0.0.1:55432/postgres';
const files = quick ? 5_000 : 20_000;
const rows = quick ? 50_000 : 200_000;

interface Server {
  child: ChildProcess;
  scanner: string;
  search: string;
  peakRssMb(): number;
}

async function start(dir: string, roots: string[]): Promise<Server> {
  const manifest = {
    name: 'bench-scanner',
    dataDir: path.join(dir, 'data'),
    listeners: [
      { name: 'search', port: 0, plugins: ['search'] },
      { name: 'scanner', port: 0, plugins: ['scanner'] },
    ],
    plugins: { search: {}, scanner: { options: { roots, allowPrivateAddresses: true } } },
  };
  const file = path.join(dir, 'manifest.json');
  writeFileSync(file, JSON.stringify(manifest));
  const child = spawn(process.execPath, [path.join(repo, 'bin', 'tessera.js'), 'serve', '--manifest', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TESSERA_LOG_LEVEL: 'info' },
  });
  const urls = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; listener?: string; url?: string };
        if (entry.msg === 'listening' && entry.listener && entry.url) urls.set(entry.listener, entry.url);
        if (urls.size === 2) resolve();
      } catch {
        // not a log line
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peak = Math.max(peak, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      // gone
    }
  }, 100);
  timer.unref();
  child.on('exit', () => clearInterval(timer));
  return { child, scanner: urls.get('scanner')!, search: urls.get('search')!, peakRssMb: () => Math.round(peak) };
}

async function post(url: string, body: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as any;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Starts a scan and polls its record until it is final; the time is the client's, end to end. */
async function scan(server: Server, kind: string, body: unknown): Promise<{ seconds: number; counts: Record<string, number>; state: string }> {
  const started = performance.now();
  const { scanId } = await post(`${server.scanner}/v1/scans/${kind}`, body);
  for (;;) {
    const { scan: record } = (await (await fetch(`${server.scanner}/v1/scans/${scanId}`)).json()) as any;
    if (['completed', 'failed', 'stopped'].includes(record.state)) {
      if (record.state !== 'completed') throw new Error(`${kind} scan ${record.state}: ${JSON.stringify(record)}`);
      return { seconds: (performance.now() - started) / 1000, counts: record.counts, state: record.state };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function report(name: string, items: number, unit: string, result: { seconds: number; counts: Record<string, number> }, server: Server): void {
  console.log(
    JSON.stringify({
      bench: 'scanner',
      case: name,
      items,
      seconds: Number(result.seconds.toFixed(2)),
      [`${unit}PerSecond`]: Math.round(items / result.seconds),
      counts: result.counts,
      serverPeakRssMb: server.peakRssMb(),
    }),
  );
}

function csvField(value: unknown): string {
  const s = String(value ?? '');
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-scanner-'));
  const tree = path.join(dir, 'tree');
  const corpus = path.join(dir, 'corpus');
  mkdirSync(corpus);
  // A tree of `files` small text files in 200 folders.
  for (let i = 0; i < files; i++) {
    const folder = path.join(tree, `d${i % 200}`);
    if (i < 200) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `f${i}.txt`), `file ${i}\nwing flutter at transonic speed, sample ${i * 7919}\n`);
  }
  const server = await start(dir, [tree, corpus]);
  try {
    const first = await scan(server, 'folder', { path: tree, targetIndex: 'tree' });
    report('folder first scan', files, 'files', first, server);
    const again = await scan(server, 'folder', { path: tree, targetIndex: 'tree' });
    report('folder rescan, nothing changed', files, 'files', again, server);

    if (existsSync(wordnet)) {
      const jsonl = gunzipSync(readFileSync(wordnet)).toString('utf8');
      const lines = jsonl.split('\n').filter((l) => l.trim() !== '');
      writeFileSync(path.join(corpus, 'wordnet.jsonl'), `${lines.join('\n')}\n`);
      const header = ['id', 'title', 'text', 'pos', 'lexname'];
      const csv = [
        header.join(','),
        ...lines.map((l) => {
          const d = JSON.parse(l) as Record<string, unknown>;
          return header.map((h) => csvField(d[h])).join(',');
        }),
      ].join('\n');
      writeFileSync(path.join(corpus, 'wordnet.csv'), `${csv}\n`);
      const j = await scan(server, 'file', { path: path.join(corpus, 'wordnet.jsonl'), format: 'jsonl', targetIndex: 'wn-jsonl', idField: 'id' });
      report('file scan, WordNet JSONL', lines.length, 'docs', j, server);
      const c = await scan(server, 'file', { path: path.join(corpus, 'wordnet.csv'), format: 'csv', targetIndex: 'wn-csv', idField: 'id' });
      report('file scan, WordNet CSV', lines.length, 'docs', c, server);
    } else {
      console.log(JSON.stringify({ bench: 'scanner', case: 'file scan', skipped: `no ${wordnet}` }));
    }

    const db = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 2 } });
    try {
      await db.raw('select 1');
      await db.schema.dropTableIfExists('bench_items');
      await db.schema.createTable('bench_items', (t) => {
        t.integer('id').primary();
        t.text('title');
        t.text('body');
        t.timestamp('updated_at', { precision: 6 });
      });
      const at = Date.parse('2026-01-01T00:00:00Z');
      for (let i = 0; i < rows; i += 5_000) {
        const batch = Array.from({ length: Math.min(5_000, rows - i) }, (_, k) => ({
          id: i + k,
          title: `item ${i + k}`,
          body: `wing flutter sample ${(i + k) * 31}`,
          updated_at: new Date(at + Math.floor((i + k) / 3) * 1000),
        }));
        await db('bench_items').insert(batch);
      }
      const d = await scan(server, 'database', {
        driver: 'postgres',
        connection: pgUrl,
        table: 'bench_items',
        watermarkColumn: 'updated_at',
        primaryKey: 'id',
        targetIndex: 'pg',
        watch: false,
        pageSize: 5000,
      });
      report('database scan, PostgreSQL', rows, 'rows', d, server);
      await db.schema.dropTableIfExists('bench_items');
    } catch (err) {
      console.log(JSON.stringify({ bench: 'scanner', case: 'database scan, PostgreSQL', skipped: (err as Error).message }));
    } finally {
      await db.destroy();
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
