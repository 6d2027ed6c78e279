// Search benchmark: `npm run build && node dist/bench/search/run.js [--quick] [--only a,b]`.
// For every adapter in adapters.ts, in this one run: Cranfield nDCG@10 and median query ms, then
// (only if that check passed) WordNet build docs/s, size on disk, RSS growth and query latency
// p50/p99 at concurrency 1 and 8. Each (adapter, task) runs in a fresh child process (one.js).
// Prints one JSON line per result and ends with {"summary": {...}}.
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { adapterNames, OURS } from './adapters.js';
import { emit, round } from './stats.js';
import type { CranfieldResult, WordnetResult } from './tasks.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyArg = args.find((a) => a.startsWith('--only'));
const only = onlyArg ? (onlyArg.includes('=') ? onlyArg.split('=')[1]! : (args[args.indexOf(onlyArg) + 1] ?? '')).split(',').filter(Boolean) : null;
const names = only ?? adapterNames();
const unknown = names.filter((n) => !adapterNames().includes(n));
if (unknown.length > 0) {
  console.error(`unknown adapter(s): ${unknown.join(', ')}; known: ${adapterNames().join(', ')}`);
  process.exit(2);
}
const CHILD_TIMEOUT_MS = 20 * 60_000;
const oneJs = fileURLToPath(new URL('./one.js', import.meta.url));

/** Runs one.js for an adapter and task; resolves with its JSON result or an error message. */
function runChild<T>(adapter: string, task: 'cranfield' | 'wordnet'): Promise<{ ok: true; result: T } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', oneJs, adapter, task, ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      process.stderr.write(b);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').filter(Boolean).at(-1);
      if (code === 0 && last) {
        try {
          resolve({ ok: true, result: JSON.parse(last) as T });
          return;
        } catch {
          /* fall through */
        }
      }
      const why = signal ? `killed by ${signal}${signal === 'SIGKILL' ? ` (timeout ${CHILD_TIMEOUT_MS / 60_000} min?)` : ''}` : `exit code ${code}`;
      resolve({ ok: false, error: `${why}: ${stderr.trim().split('\n').slice(-5).join(' | ') || stdout.trim().slice(-500)}` });
    });
  });
}

interface Row {
  ndcg10: number | null;
  cranfieldMedianMs: number | null;
  buildDocsPerSec: number | null;
  sizeMb: number | null;
  rssDeltaMb: number | null;
  c1: { p50Ms: number; p99Ms: number; qps: number } | null;
  c8: { p50Ms: number; p99Ms: number; qps: number } | null;
  http: { c1: { p50Ms: number; p99Ms: number }; c8: { p50Ms: number; p99Ms: number } } | null;
  error?: string;
}

const started = performance.now();
emit({
  bench: 'environment',
  node: process.version,
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  memGb: round(totalmem() / 2 ** 30, 1),
  quick,
  adapters: names,
});
const rows: Record<string, Row> = {};
for (const name of names) {
  const row: Row = { ndcg10: null, cranfieldMedianMs: null, buildDocsPerSec: null, sizeMb: null, rssDeltaMb: null, c1: null, c8: null, http: null };
  rows[name] = row;
  const cran = await runChild<CranfieldResult>(name, 'cranfield');
  if (!cran.ok) {
    row.error = `cranfield: ${cran.error}`;
    emit({ bench: 'cranfield', adapter: name, error: cran.error });
    emit({ bench: 'wordnet', adapter: name, skipped: 'the Cranfield task failed' });
    continue;
  }
  emit({ ...cran.result });
  row.ndcg10 = cran.result.ndcg10;
  row.cranfieldMedianMs = cran.result.medianQueryMs;
  if (!cran.result.checkPassed) {
    row.error = `failed the check: ${cran.result.check}`;
    emit({ bench: 'wordnet', adapter: name, skipped: `failed the Cranfield check: ${cran.result.check}` });
    continue;
  }
  const wn = await runChild<WordnetResult>(name, 'wordnet');
  if (!wn.ok) {
    row.error = `wordnet: ${wn.error}`;
    emit({ bench: 'wordnet', adapter: name, error: wn.error });
    continue;
  }
  emit({ ...wn.result });
  const r = wn.result;
  row.buildDocsPerSec = r.buildDocsPerSec;
  row.sizeMb = r.sizeBytes === null ? null : round(r.sizeBytes / 1048576, 1);
  row.rssDeltaMb = r.rssDeltaMb;
  if (!r.inProcess) {
    row.error = `failed the WordNet check: ${r.check.foundInTop10}/${r.check.titleGlossQueries} documents found by their own title and gloss`;
    continue;
  }
  const pick = (f: { p50Ms: number; p99Ms: number; qps: number }) => ({ p50Ms: f.p50Ms, p99Ms: f.p99Ms, qps: f.qps });
  row.c1 = pick(r.inProcess.c1);
  row.c8 = pick(r.inProcess.c8);
  if (r.overHttp) row.http = { c1: pick(r.overHttp.c1), c8: pick(r.overHttp.c8) };
}

/** The issue's targets, read for our adapter against the peers measured in this same run. */
function targets(): Record<string, unknown> {
  const ours = rows[OURS];
  if (!ours) return { status: `pending: no "${OURS}" adapter in bench/search/adapters.ts yet` };
  const peers = Object.entries(rows)
    .filter(([n]) => n !== OURS)
    .map(([, r]) => r);
  const fts5 = Object.entries(rows)
    .filter(([n]) => n.startsWith('sqlite-fts5'))
    .map(([, r]) => r);
  const mini = rows['minisearch'];
  const max = (xs: Array<number | null | undefined>) => Math.max(...xs.filter((x): x is number => typeof x === 'number'));
  const min = (xs: Array<number | null | undefined>) => Math.min(...xs.filter((x): x is number => typeof x === 'number'));
  const bestPeerNdcg = max(peers.map((r) => r.ndcg10));
  const fts5P50 = min(fts5.map((r) => r.c1?.p50Ms));
  const fts5DocsPerSec = max(fts5.map((r) => r.buildDocsPerSec));
  const miniP50 = mini?.c1?.p50Ms ?? NaN;
  const p50 = ours.c1?.p50Ms ?? NaN;
  return {
    note: 'FTS5 = the better of its two tokenizer variants on each figure',
    ndcgAtLeastBestPeer: { ours: ours.ndcg10, bestPeer: bestPeerNdcg, met: (ours.ndcg10 ?? -1) >= bestPeerNdcg },
    p50AtMostHalfOfFts5: { ours: p50, fts5: fts5P50, met: p50 <= fts5P50 / 2 },
    p50AtMostThirdOfMinisearch: { ours: p50, minisearch: miniP50, met: p50 <= miniP50 / 3 },
    indexingAtLeastFts5: { ours: ours.buildDocsPerSec, fts5: fts5DocsPerSec, met: (ours.buildDocsPerSec ?? -1) >= fts5DocsPerSec },
    p99Under10ms: {
      c1: ours.c1?.p99Ms ?? null,
      c8: ours.c8?.p99Ms ?? null,
      metAtC1: (ours.c1?.p99Ms ?? Infinity) < 10,
      metAtC8: (ours.c8?.p99Ms ?? Infinity) < 10,
    },
  };
}

emit({ summary: { quick, durationS: round((performance.now() - started) / 1000, 1), adapters: rows, targets: targets() } });
if (Object.values(rows).some((r) => r.error)) process.exitCode = 1;
