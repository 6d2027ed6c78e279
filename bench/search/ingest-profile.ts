// Groups a V8 CPU profile of the ingestion path: `node dist/bench/search/ingest-profile.js FILE.cpuprofile`.
// Each sample goes to the innermost frame on its stack that names a group (analysis, postings
// build, LMDB, JSON/validation, ...); samples with none go to "other". Prints JSON, then a table.
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const GROUPS: Array<[string, (f: Node['callFrame']) => boolean]> = [
  ['idle / waiting (fsync, worker threads)', (f) => f.functionName === '(idle)'],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['analysis (tokenise, stop words, stem)', (f) => /plugins\/search\/analysis\//.test(f.url)],
  ['embedding (autoEmbed)', (f) => /plugins\/search\/embedders\//.test(f.url)],
  ['postings and segment build', (f) => /plugins\/search\/index\/(segment|segment-columns|segment-graphs|bitset|postings-builder)\.js/.test(f.url)],
  ['segment encode', (f) => /encodeSegment|encode/.test(f.functionName) && /plugins\/search\//.test(f.url)],
  ['LMDB writes and commit', (f) => /node_modules\/lmdb|runtime\/store\.js/.test(f.url)],
  [
    'JSON stringify/parse and validation',
    (f) => /document-validation|field-mapping|node_modules\/zod/.test(f.url) || /^(stringify|parse)$/.test(f.functionName),
  ],
  ['upsert bookkeeping (search-index)', (f) => /plugins\/search\/index\//.test(f.url)],
  ['bench harness', (f) => /bench\/search\//.test(f.url)],
];

const file = process.argv[2];
if (!file) throw new Error('usage: ingest-profile.js FILE.cpuprofile');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const group = new Map<number, string>();
const selfTop = new Map<string, number>();
function walk(id: number, inherited: string): void {
  const node = byId.get(id)!;
  const own = GROUPS.find(([, test]) => test(node.callFrame))?.[0];
  // The innermost named group wins, except that idle and GC are always their own.
  group.set(id, own ?? inherited);
  for (const c of node.children ?? []) walk(c, own ?? inherited);
}
walk(profile.nodes[0]!.id, 'other (runtime, module loading, native)');
const totals = new Map<string, number>();
let all = 0;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  all += us;
  const g = group.get(id)!;
  totals.set(g, (totals.get(g) ?? 0) + us);
  const f = byId.get(id)!.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
  selfTop.set(key, (selfTop.get(key) ?? 0) + us);
});
const rows = [...totals].sort((a, b) => b[1] - a[1]);
const top = [...selfTop].sort((a, b) => b[1] - a[1]).slice(0, 15);
process.stdout.write(
  `${JSON.stringify({ file, totalMs: Math.round(all / 1000), groups: Object.fromEntries(rows.map(([g, us]) => [g, Math.round(us / 1000)])) })}\n`,
);
process.stdout.write(`\n| group | ms | share |\n|---|---|---|\n`);
for (const [g, us] of rows) process.stdout.write(`| ${g} | ${Math.round(us / 1000)} | ${((100 * us) / all).toFixed(1)}% |\n`);
process.stdout.write(`\nTop self frames:\n`);
for (const [k, us] of top) process.stdout.write(`${Math.round(us / 1000)} ms  ${k}\n`);
