/**
 * Autocomplete on the 117,791 WordNet synsets (title = the lemmas, lexname as a keyword category,
 * the gloss as text for phrases), against MiniSearch's autoSuggest and FlexSearch's suggestions
 * over the same titles, in the same run:
 *   npm run bench:autocomplete                 (every prefix 20 times)
 *   npm run bench:autocomplete -- --quick      (5 times, 30,000 synsets)
 *   npm run bench:autocomplete -- --profile    (also writes a CPU profile of each timed Tessera
 *                                               loop to ./autocomplete-{in-process,http}.cpuprofile)
 * Latency: p50 and p99 per request, in-process (the service call) and over HTTP (one keep-alive
 * client, one request at a time), over the 100 prefixes and their 100 typo'd forms. Quality on the
 * fixed list (prefixes.ts): top-1 is a real title that starts with the prefix; the typo'd prefix
 * still finds the title it was cut from in the top 10.
 * Prints one JSON line per engine; the table lives in bench/README.md.
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Session } from 'node:inspector/promises';
import { Document } from 'flexsearch';
import MiniSearch from 'minisearch';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';
import { dataDir } from '../search/data.js';
import { packageVersion } from '../search/paths.js';
import { captured } from './capture-plugin.js';
import { fold, qualityPrefixes, type QualityPrefix } from './prefixes.js';

const quick = process.argv.includes('--quick');
const repeats = quick ? 5 : 20;
const limit = quick ? 30_000 : Infinity;
const profile = process.argv.includes('--profile');

/** Runs `work` under the V8 CPU profiler when --profile is given, writing `<name>.cpuprofile`. */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!profile) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile: result } = await session.post('Profiler.stop');
    writeFileSync(`${name}.cpuprofile`, JSON.stringify(result));
    session.disconnect();
  }
}

interface Synset {
  id: string;
  title: string;
  text: string;
  lexname: string;
}

function loadSynsets(): Synset[] {
  const file = path.join(dataDir(), 'corpus', 'wordnet_glosses.jsonl.gz');
  const out: Synset[] = [];
  for (const line of gunzipSync(readFileSync(file)).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as Synset;
    out.push({ id: r.id, title: r.title, text: r.text, lexname: r.lexname });
    if (out.length >= limit) break;
  }
  return out;
}

/** An engine under test: suggestion texts for a prefix, best first. */
type Suggest = (prefix: string) => Promise<string[]> | string[];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(suggest: Suggest, list: readonly QualityPrefix[]): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    for (const q of list) {
      for (const text of [q.prefix, q.typo]) {
        const t0 = performance.now();
        await suggest(text);
        times.push(performance.now() - t0);
      }
    }
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
}

async function quality(suggest: Suggest, list: readonly QualityPrefix[], titles: ReadonlySet<string>): Promise<{ top1RealTitle: number; typoFound: number }> {
  let top1 = 0;
  let typo = 0;
  for (const q of list) {
    const first = (await suggest(q.prefix))[0];
    if (first !== undefined && titles.has(fold(first)) && fold(first).startsWith(q.prefix)) top1++;
    if ((await suggest(q.typo)).slice(0, 10).some((s) => fold(s) === fold(q.title))) typo++;
  }
  return { top1RealTitle: top1 / list.length, typoFound: typo / list.length };
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  const synsets = loadSynsets();
  const titles = new Set(synsets.map((s) => fold(s.title)));
  const list = qualityPrefixes(synsets.map((s) => s.title));
  const results: Array<Record<string, unknown>> = [];

  // Tessera, in-process and over HTTP, on one deployment.
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-autocomplete-'));
  const capture = fileURLToPath(new URL('./capture-plugin.js', import.meta.url));
  const manifest = resolveManifest(
    {
      name: 'bench',
      listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
      plugins: { search: {}, 'bench-capture': { module: capture } },
      limits: { bodyBytes: 128 * 1024 * 1024 },
    },
    { file: '(bench)', dir: path.dirname(capture), dataDir: dir },
  );
  const app = await App.create(manifest, { logger: createLogger({ level: 'silent' }) });
  await app.start();
  const base = `${app.url('search')}/v1/indexes`;
  const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await post(base, { name: 'wordnet', mappings: { title: { type: 'text' }, text: { type: 'text' }, lexname: { type: 'keyword' } } });
  let t0 = performance.now();
  for (let i = 0; i < synsets.length; i += 5000) await post(`${base}/wordnet/documents`, synsets.slice(i, i + 5000));
  const ingestMs = performance.now() - t0;
  const service = captured.autocomplete!;
  t0 = performance.now();
  await service.suggest('default', 'wordnet', { q: 'a', size: 10 });
  const buildMs = performance.now() - t0;
  const inProcess: Suggest = async (q) => (await service.suggest('default', 'wordnet', { q, size: 10 })).suggestions.map((s) => s.text);
  const overHttp: Suggest = async (q) => {
    const res = await fetch(`${base}/wordnet/autocomplete?q=${encodeURIComponent(q)}&size=10`);
    return ((await res.json()) as { suggestions: Array<{ text: string }> }).suggestions.map((s) => s.text);
  };
  const tesseraQuality = await quality(inProcess, list, titles);
  const memoryMb = Math.round(process.memoryUsage().heapUsed / 1e6);
  results.push({
    engine: 'tessera',
    mode: 'in-process',
    docs: synsets.length,
    ingestMs: Math.round(ingestMs),
    buildMs: Math.round(buildMs),
    heapMb: memoryMb,
    ...(await profiled('autocomplete-in-process', () => measure(inProcess, list))),
    ...tesseraQuality,
  });
  results.push({
    engine: 'tessera',
    mode: 'http',
    docs: synsets.length,
    ...(await profiled('autocomplete-http', () => measure(overHttp, list))),
    ...(await quality(overHttp, list, titles)),
  });
  await app.stop();
  rmSync(dir, { recursive: true, force: true });

  // MiniSearch: autoSuggest over the titles, prefix and fuzzy as its README shows.
  t0 = performance.now();
  const mini = new MiniSearch<{ id: string; title: string }>({ fields: ['title'], storeFields: [] });
  mini.addAll(synsets.map((s) => ({ id: s.id, title: s.title })));
  const miniBuild = performance.now() - t0;
  const miniSuggest: Suggest = (q) =>
    mini
      .autoSuggest(q, { prefix: true, fuzzy: 0.2 })
      .slice(0, 10)
      .map((s) => s.suggestion);
  results.push({
    engine: `minisearch ${packageVersion('minisearch')}`,
    mode: 'in-process autoSuggest(prefix, fuzzy 0.2)',
    buildMs: Math.round(miniBuild),
    ...(await measure(miniSuggest, list)),
    ...(await quality(miniSuggest, list, titles)),
  });

  // FlexSearch: a forward-tokenised title index searched with suggest: true, answering titles.
  t0 = performance.now();
  const flex = new Document<{ id: number; title: string }>({ tokenize: 'forward', document: { id: 'id', index: ['title'] } });
  synsets.forEach((s, i) => flex.add({ id: i, title: s.title }));
  const flexBuild = performance.now() - t0;
  const flexSuggest: Suggest = (q) => {
    const found = flex.search(q, { limit: 10, suggest: true, merge: true }) as unknown as Array<{ id: number }>;
    return found.map((r) => synsets[Number(r.id)]!.title);
  };
  results.push({
    engine: `flexsearch ${packageVersion('flexsearch')}`,
    mode: "in-process Document, tokenize 'forward', suggest: true",
    buildMs: Math.round(flexBuild),
    ...(await measure(flexSuggest, list)),
    ...(await quality(flexSuggest, list, titles)),
  });

  for (const r of results) console.log(JSON.stringify(r));
}

await main();
