import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { prng } from '../support/prng.js';

export { prng };
import type { BenchDoc } from './adapter.js';
import { projectRoot } from './paths.js';

/** ../shared/data beside the project root (see ../shared/data/README.md); TESSERA_DATA_DIR overrides. */
export function dataDir(): string {
  return process.env['TESSERA_DATA_DIR'] ? resolve(process.env['TESSERA_DATA_DIR']) : resolve(projectRoot(), '..', 'shared', 'data');
}

function requireFile(file: string, what: string): string {
  if (!existsSync(file)) {
    throw new Error(
      `bench/search: ${what} not found at ${file}. The benchmark data lives in ../shared/data beside the project root (see ../shared/data/README.md); set TESSERA_DATA_DIR to read it from elsewhere.`,
    );
  }
  return file;
}

export interface CranfieldQuery {
  id: string;
  text: string;
}

export interface Cranfield {
  docs: BenchDoc[];
  queries: CranfieldQuery[];
  /** query id -> doc id -> graded relevance (0-4). */
  qrels: Map<string, Map<string, number>>;
}

export function cranfieldAvailable(): boolean {
  return ['docs.jsonl', 'queries.jsonl', 'qrels.tsv'].every((f) => existsSync(join(dataDir(), 'cranfield', f)));
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** The Cranfield collection: 1,400 docs, 225 queries, graded qrels (TSV, header `query-id corpus-id score`). */
export function loadCranfield(): Cranfield {
  return loadCollection('cranfield');
}

/** The relevance collections of ../shared/data, each `{docs,queries}.jsonl` and `qrels.tsv` (see its README). */
export const COLLECTIONS = ['cranfield', 'nfcorpus_pp', 'cisi'] as const;
export type CollectionName = (typeof COLLECTIONS)[number];

/**
 * A judged collection in Cranfield's layout. Queries without any judgment are dropped (CISI
 * judges 76 of its 112 queries; the others would score 0 for every engine).
 */
export function loadCollection(name: CollectionName): Cranfield {
  const dir = join(dataDir(), name);
  const docsFile = requireFile(join(dir, 'docs.jsonl'), `${name} docs.jsonl`);
  const queriesFile = requireFile(join(dir, 'queries.jsonl'), `${name} queries.jsonl`);
  const qrelsFile = requireFile(join(dir, 'qrels.tsv'), `${name} qrels.tsv`);
  const [header, ...rows] = readFileSync(qrelsFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (header?.trim().split(/\s+/).join(' ') !== 'query-id corpus-id score') throw new Error(`${qrelsFile}: unexpected header "${header}"`);
  const qrels = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const [query, doc, score] = row.split('\t');
    if (query === undefined || doc === undefined || score === undefined || Number.isNaN(Number(score))) throw new Error(`${qrelsFile}: bad row "${row}"`);
    let judged = qrels.get(query);
    if (!judged) qrels.set(query, (judged = new Map()));
    judged.set(doc, Number(score));
  }
  const docs = readJsonl<{ id: string | number; title?: string; text?: string }>(docsFile).map((d) => ({
    id: String(d.id),
    title: d.title ?? '',
    text: d.text ?? '',
  }));
  const queries = readJsonl<{ id: string | number; text: string }>(queriesFile)
    .map((q) => ({ id: String(q.id), text: q.text }))
    .filter((q) => name === 'cranfield' || qrels.has(q.id));
  return { docs, queries, qrels };
}

export const WORDNET_DOCS = 117_791;

/**
 * The WordNet glosses corpus (corpus/wordnet_glosses.jsonl.gz), streamed through gunzip:
 * title = the synset's lemmas, text = its gloss. `limit` keeps the first n documents.
 */
export async function loadWordnet(limit = Infinity): Promise<BenchDoc[]> {
  const file = requireFile(join(dataDir(), 'corpus', 'wordnet_glosses.jsonl.gz'), 'WordNet corpus wordnet_glosses.jsonl.gz');
  const stream = createReadStream(file).pipe(createGunzip());
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const docs: BenchDoc[] = [];
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const row = JSON.parse(line) as { id: string; title: string; text: string };
      docs.push({ id: String(row.id), title: row.title, text: row.text });
      if (docs.length >= limit) break;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return docs;
}

/** Lucene's English stop words: never drawn as query words (they carry no query intent). */
const STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

function docWords(doc: BenchDoc): string[] {
  const words = new Set<string>();
  for (const w of `${doc.title} ${doc.text}`.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (w.length >= 2 && !STOP_WORDS.has(w) && !/^\p{N}+$/u.test(w)) words.add(w);
  }
  return [...words];
}

export interface GeneratedQuery {
  text: string;
  /** The document the words were drawn from (it contains every word of the query). */
  sourceId: string;
}

/**
 * `count` queries of 2-4 words from the documents' own vocabulary, deterministic for a seed: pick
 * a document at random, then 2, 3 or 4 distinct words (length >= 2, not a stop word, not a
 * number) from its title and gloss, in random order. Drawing through documents weighs words by how
 * often they occur and makes every query match at least one document, as real queries do.
 */
export function generateQueries(docs: readonly BenchDoc[], count: number, seed: number): GeneratedQuery[] {
  if (docs.length === 0) throw new Error('generateQueries: no documents');
  const rand = prng(seed);
  const queries: GeneratedQuery[] = [];
  let attempts = 0;
  while (queries.length < count) {
    if (++attempts > count * 100) throw new Error('generateQueries: documents too short to draw queries from');
    const doc = docs[Math.floor(rand() * docs.length)]!;
    const n = 2 + Math.floor(rand() * 3);
    const words = docWords(doc);
    if (words.length < n) continue;
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(rand() * (words.length - i));
      [words[i], words[j]] = [words[j]!, words[i]!];
    }
    queries.push({ text: words.slice(0, n).join(' '), sourceId: doc.id });
  }
  return queries;
}
