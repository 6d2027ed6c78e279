import type { Deadline } from './deadline.js';
import { lookup } from '../index/segment.js';
import type { Bm25Segment, Bm25Term, KernelRunner, PostingsBlock, BitsetBlock } from 'tessera-runtime/kernels';
import { InputError } from 'tessera-runtime/plugin';
import { andInPlace, andNotInPlace, fullSet, members, popcount, type Bitset } from '../index/bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import { highlightDocument } from './highlight.js';
import { isFlatDisjunction, matchSet, phraseMatches } from './match-set.js';
import { compileProjection, projectSource } from './projection.js';
import { positiveLeaves, type PhraseQuery, type QueryNode, type TermQuery } from '../query/query-ast.js';
import { parseQuery } from '../query/query-parser.js';
import { segmentColumns } from '../index/segment-columns.js';
import { keywordSortColumn, READ_SOURCE, sortKeyOf, sourceSortColumn, type SortKey } from './sort-columns.js';
import type { LoadedSegment, SearchIndex } from '../index/search-index.js';

export interface KeywordQuery {
  q?: string;
  fields?: string[];
  operator?: 'AND' | 'OR';
  minimumShouldMatch?: string | number;
  /**
   * How a word's matches in several text fields combine (see docs/search-query.md): `bm25f` (the
   * default) saturates the fields' boosted, length-normalised frequencies once, with one idf;
   * `sum` adds each field's BM25 score; `best` keeps the best field's plus `tieBreaker` times the rest.
   */
  fieldScoring?: FieldScoring;
  /** `best`: the share of the other fields' scores added to the best one's. @default 0 */
  tieBreaker?: number;
  /**
   * A word repeated in `q` weighs as many times as it is written (BM25's query-term frequency,
   * as Lucene sums repeated clauses). Off only to measure it. @default true
   */
  queryTermFrequency?: boolean;
  highlight?: boolean;
  size: number;
  from: number;
  sort?: Array<{ field: string; order: 'asc' | 'desc' }>;
  /** The search's time budget, checked at safe points. */
  deadline?: Deadline;
  projection?: Record<string, 0 | 1>;
  select?: string[];
  filter?: FilterNode;
}

export const fieldScorings = ['bm25f', 'sum', 'best'] as const;
export type FieldScoring = (typeof fieldScorings)[number];

export interface Hit {
  id: string;
  score: number;
  source: Record<string, unknown>;
  highlight: Record<string, string[]>;
}

export interface KeywordResult {
  total: number;
  hits: Hit[];
}

/** `title^2` -> { field: 'title', boost: 2 }; only indexed text fields can be searched. */
export function resolveFields(index: SearchIndex, requested: readonly string[] | undefined): Array<{ field: string; boost: number }> {
  const text = index.textFields();
  if (!requested || requested.length === 0) return text.map((field) => ({ field, boost: 1 }));
  return requested.map((spec, i) => {
    const match = /^(.+?)(?:\^(\d+(?:\.\d+)?))?$/.exec(spec)!;
    const field = match[1]!;
    const boost = match[2] === undefined ? 1 : Number(match[2]);
    if (!text.includes(field)) {
      throw new InputError('validation_failed', `fields[${i}]: "${field}" is not an indexed text field of index "${index.name}".`, {
        details: { issues: [{ path: `fields[${i}]`, message: `expected one of ${text.join(', ') || '(no text fields)'}` }] },
      });
    }
    return { field, boost };
  });
}

function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * BM25 keyword search over an index's segments. The kernel scores every positive leaf (each term
 * in each searched field, phrases as postings of their matches) and counts matches; JS computes
 * an exact match set only when the query needs one (must / mustNot / phrases / nesting), and the
 * filter and tombstones reach the kernel as one bitset per segment.
 */
export async function searchKeyword(index: SearchIndex, runner: KernelRunner, query: KeywordQuery): Promise<KeywordResult> {
  const fields = resolveFields(index, query.fields);
  // Checked once, before any work, so a bad projection is a 400 even when nothing matches.
  const projection = compileProjection(query.projection, query.select);
  const segments = index.segments;
  const n = index.docCount;
  // Parsed and checked before anything else, so a bad query is a 400 even on an empty index.
  const ast = parseIndexQuery(index, query, fields);
  checkComplexity(ast);
  if (n === 0 || segments.length === 0) return { total: 0, hits: [] };

  const scope = { fields: fields.map((f) => f.field) };
  const { leaves, repeats } = dedupeLeaves(positiveLeaves(ast));
  const qtf = (t: number): number => (query.queryTermFrequency === false ? 1 : repeats[t]!);
  const fieldScoring: FieldScoring = fields.length > 1 ? (query.fieldScoring ?? 'bm25f') : 'sum';
  const flat: Extract<QueryNode, { type: 'bool' }> | undefined =
    ast.type === 'term' ? { type: 'bool', must: [], should: [ast], mustNot: [], minimumShouldMatch: 1 } : isFlatDisjunction(ast) ? ast : undefined;

  // Collection statistics across segments. Deleted and replaced versions count in N and in df until
  // a merge drops them, as in Lucene (maxDoc and docFreq): counting them in one but not the other
  // would let df exceed N and the idf go negative.
  let docsTotal = 0;
  const sumLength = new Map<string, number>();
  for (const seg of segments) {
    docsTotal += seg.data.docCount;
    for (const { field } of fields) sumLength.set(field, (sumLength.get(field) ?? 0) + (seg.data.text[field]?.sumLength ?? 0));
  }
  const avgdl = (field: string): number => Math.max((sumLength.get(field) ?? 0) / docsTotal, 1e-6);
  // Each (field, term) is looked up once per query, not once per segment.
  const dfCache = new Map<string, number>();
  const df = (field: string, term: string): number => {
    const key = `${field}\u0000${term}`;
    const cached = dfCache.get(key);
    if (cached !== undefined) return cached;
    let count = 0;
    for (const seg of segments) {
      const text = seg.data.text[field];
      if (!text) continue;
      const i = lookup(text.terms, term);
      if (i !== -1) count += text.termStarts[i + 1]! - text.termStarts[i]!;
    }
    dfCache.set(key, count);
    return count;
  };
  // BM25F's one idf per word over the combined field: its document frequency is the largest of
  // the searched fields' (Lucene's CombinedFieldQuery), which needs no union of postings.
  const combinedIdf = (leaf: TermQuery | PhraseQuery): number => {
    const dfOf = (term: string): number =>
      leaf.field !== undefined ? df(leaf.field, term) : fields.reduce((max, { field }) => Math.max(max, df(field, term)), 0);
    return leaf.type === 'term' ? idf(docsTotal, dfOf(leaf.term)) : leaf.terms.reduce((sum, term) => sum + idf(docsTotal, dfOf(term)), 0);
  };
  const combined = fieldScoring === 'bm25f' ? leaves.map((leaf, t) => combinedIdf(leaf) * qtf(t)) : [];

  const temporary: Array<PostingsBlock | BitsetBlock> = [];
  const bm25Segments: Bm25Segment[] = [];
  const matchSets: Array<Bitset | undefined> = [];
  let exactTotal = 0;
  let docBase = 0;
  const bases: number[] = [];
  try {
    for (const seg of segments) {
      bases.push(docBase);
      const count = seg.data.docCount;
      // Documents allowed at all: not deleted, passing the filter, and (when needed) matching exactly.
      let allowed: Bitset | undefined;
      if (seg.deletedCount > 0) allowed = andNotInPlace(fullSet(count), seg.deleted);
      if (query.filter) {
        const passing = evaluateFilter(query.filter, segmentColumns(seg), count);
        allowed = allowed ? andInPlace(allowed, passing) : passing;
      }
      let exact: Bitset | undefined;
      if (!flat) {
        exact = matchSet(ast, seg.data, scope, new Map(), query.deadline);
        if (allowed) andInPlace(exact, allowed);
        exactTotal += popcount(exact);
      }
      matchSets.push(exact ?? allowed);
      const terms: Bm25Term[] = [];
      leaves.forEach((leaf, t) => {
        for (const [f, { field, boost }] of fields.entries()) {
          if (leaf.field !== undefined && leaf.field !== field) continue;
          const loaded = seg.fields[field];
          const text = seg.data.text[field];
          if (!loaded || !text) continue;
          if (leaf.type === 'term') {
            const i = lookup(text.terms, leaf.term);
            if (i === -1) continue;
            const start = text.termStarts[i]!;
            const end = text.termStarts[i + 1]!;
            terms.push({
              postings: runner.postingsView(loaded.postings, start, end - start),
              docLengths: loaded.lengths,
              avgdl: avgdl(field),
              idf: fieldScoring === 'bm25f' ? combined[t]! : idf(docsTotal, df(field, leaf.term)) * qtf(t),
              boost,
              term: t,
              field: f,
            });
          } else {
            const matches = phraseMatches(text, leaf.terms, leaf.positions);
            if (matches.size === 0) continue;
            const docs = Uint32Array.from([...matches.keys()].sort((a, b) => a - b));
            const tfs = Uint32Array.from(docs, (d) => matches.get(d)!);
            const postings = runner.loadPostings(docs, tfs);
            temporary.push(postings);
            const phraseIdf = fieldScoring === 'bm25f' ? combined[t]! : leaf.terms.reduce((sum, term) => sum + idf(docsTotal, df(field, term)), 0) * qtf(t);
            terms.push({ postings, docLengths: loaded.lengths, avgdl: avgdl(field), idf: phraseIdf, boost, term: t, field: f });
          }
        }
      });
      const filterSet = exact ?? allowed;
      let filter: BitsetBlock | undefined;
      if (filterSet) {
        filter = runner.loadBitset(filterSet, count);
        temporary.push(filter);
      }
      bm25Segments.push({ docBase, docCount: count, terms, ...(filter ? { filter } : {}) });
      docBase += count;
    }

    const want = query.from + query.size;
    const sorting = query.sort !== undefined && query.sort.length > 0;
    const scoring = leaves.length > 0 && ast.type !== 'all';
    let ranked: Array<{ global: number; score: number }>;
    let total: number;
    if (scoring) {
      const result = await runner.bm25({
        segments: bm25Segments,
        k: Math.max(1, sorting ? docsTotal : want),
        k1: index.record.settings.k1,
        b: index.record.settings.b,
        minimumShouldMatch: flat ? Math.max(1, flat.minimumShouldMatch) : 1,
        fieldScoring,
        tieBreaker: query.tieBreaker ?? 0,
      });
      ranked = Array.from(result.ids, (global, i) => ({ global, score: result.scores[i]! }));
      total = flat ? result.total : exactTotal;
    } else {
      // Match-all style queries: every allowed document, constant score, in index order.
      ranked = [];
      segments.forEach((seg, i) => {
        const set = matchSets[i] ?? fullSet(seg.data.docCount);
        for (const ord of members(set)) ranked.push({ global: bases[i]! + ord, score: 1 });
      });
      total = ranked.length;
    }

    const locate = (global: number): { seg: LoadedSegment; ord: number } => {
      let s = segments.length - 1;
      while (bases[s]! > global) s--;
      return { seg: segments[s]!, ord: global - bases[s]! };
    };
    query.deadline?.check();
    if (sorting) ranked = sortBy(index, ranked, segments, bases, query.sort!, query.deadline);
    query.deadline?.check();
    const page = ranked.slice(query.from, want);

    const highlight = query.highlight === false ? undefined : highlighterFor(index, fields, leaves);
    const hits: Hit[] = [];
    for (const { global, score } of page) {
      query.deadline?.check();
      const { seg, ord } = locate(global);
      const id = seg.data.ids[ord]!;
      const source = index.getDocument(id);
      if (!source) continue;
      hits.push({
        id,
        score,
        source: projectSource(source, projection),
        highlight: highlight ? highlight(source) : {},
      });
    }
    return { total, hits };
  } finally {
    for (const block of temporary) runner.release(block);
  }
}

/** The distinct leaves, and how many times each was written in the query. */
function dedupeLeaves<T extends { type: string }>(all: T[]): { leaves: T[]; repeats: number[] } {
  const seen = new Map<string, number>();
  const leaves: T[] = [];
  const repeats: number[] = [];
  for (const leaf of all) {
    const key = JSON.stringify(leaf);
    const at = seen.get(key);
    if (at !== undefined) {
      repeats[at]!++;
      continue;
    }
    seen.set(key, leaves.length);
    leaves.push(leaf);
    repeats.push(1);
  }
  return { leaves, repeats };
}

function sortBy(
  index: SearchIndex,
  ranked: Array<{ global: number; score: number }>,
  segments: readonly LoadedSegment[],
  bases: readonly number[],
  sort: NonNullable<KeywordQuery['sort']>,
  deadline?: Deadline,
): Array<{ global: number; score: number }> {
  // Flat arrays, not an object per hit: a sort of every document of a large index allocated
  // enough to spend more time collecting garbage than comparing.
  const n = ranked.length;
  const segOf = new Uint32Array(n);
  const ordOf = new Uint32Array(n);
  const perSegment = new Uint32Array(segments.length);
  for (let i = 0; i < n; i++) {
    const global = ranked[i]!.global;
    let s = segments.length - 1;
    while (bases[s]! > global) s--;
    segOf[i] = s;
    ordOf[i] = global - bases[s]!;
    perSegment[s]!++;
  }
  const keys = sort.map(({ field, order }): SortKey[] => {
    const out = new Array<SortKey>(n);
    // Per segment, where this field's keys come from.
    const readers = segments.map((seg, s): ((ord: number) => SortKey) => {
      const numeric = seg.data.numeric[field];
      if (numeric) {
        const column = order === 'asc' ? numeric.min : numeric.max;
        return (ord) => {
          const v = column[ord]!;
          return Number.isNaN(v) ? undefined : v;
        };
      }
      const keyword = seg.data.keyword[field];
      if (keyword) {
        // The keyword field's sort column: no stored document is read or parsed.
        const column = keywordSortColumn(keyword, seg.data.docCount);
        const at = order === 'asc' ? column.min : column.max;
        return (ord) => (at[ord] === -1 ? undefined : keyword.values[at[ord]!]);
      }
      if (index.record.mappings[field]?.type === 'keyword') return () => undefined; // mapped, no value in this segment
      const fromSource = (ord: number): SortKey => {
        const source = index.sourceAt(seg, ord);
        return source === undefined ? undefined : sortKeyOf(valueAt(source, field));
      };
      // Text fields: a column read from the sources when this sort ranks enough of the segment.
      const column =
        perSegment[s]! === 0
          ? undefined
          : sourceSortColumn(
              seg.data,
              seg.deleted,
              field,
              perSegment[s]!,
              (ord) => {
                const source = index.sourceAt(seg, ord);
                return source === undefined ? undefined : valueAt(source, field);
              },
              deadline,
            );
      if (!column) return fromSource;
      return (ord) => {
        const key = column[ord];
        return key === READ_SOURCE ? fromSource(ord) : key;
      };
    });
    for (let i = 0; i < n; i++) {
      if ((i & 4095) === 4095) deadline?.check();
      out[i] = readers[segOf[i]!]!(ordOf[i]!);
    }
    return out;
  });
  const idOf = (i: number): string => segments[segOf[i]!]!.data.ids[ordOf[i]!]!;
  const directions = sort.map(({ order }) => (order === 'asc' ? 1 : -1));
  const positions = Array.from({ length: n }, (_, i) => i);
  positions.sort((a, b) => {
    for (let f = 0; f < keys.length; f++) {
      const x = keys[f]![a];
      const y = keys[f]![b];
      if (x === y) continue;
      // Missing values sort last in either direction, as Elasticsearch does.
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      return x < y ? -directions[f]! : directions[f]!;
    }
    const byScore = ranked[b]!.score - ranked[a]!.score;
    if (byScore !== 0) return byScore;
    const x = idOf(a);
    const y = idOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return positions.map((i) => ranked[i]!);
}

export function valueAt(source: Record<string, unknown>, path: string): unknown {
  // Own properties only: a path named "constructor" must not find Object.prototype's.
  if (Object.hasOwn(source, path)) return source[path];
  let value: unknown = source;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * `q` parsed for an index: unqualified words analysed with the first searched field's analyzer,
 * `field:` qualifiers with their own, the index's operator and minimumShouldMatch as defaults.
 */
export function parseIndexQuery(
  index: SearchIndex,
  query: Pick<KeywordQuery, 'q' | 'operator' | 'minimumShouldMatch'>,
  fields: ReadonlyArray<{ field: string }>,
): QueryNode {
  return parseQuery(query.q ?? '', {
    analyzer: index.analyzerFor(fields[0]?.field ?? ''),
    fields: Object.fromEntries(index.textFields().map((f) => [f, index.analyzerFor(f)])),
    defaultOperator: query.operator ?? index.record.settings.defaultOperator,
    minimumShouldMatch: query.minimumShouldMatch ?? index.record.settings.minimumShouldMatch,
  });
}

/** Highlights of `fields` for the terms of a query's positive leaves. */
function highlighterFor(
  index: SearchIndex,
  fields: ReadonlyArray<{ field: string }>,
  leaves: ReadonlyArray<TermQuery | PhraseQuery>,
): (source: Record<string, unknown>) => Record<string, string[]> {
  const terms = new Set(leaves.flatMap((l) => (l.type === 'term' ? [l.term] : l.terms)));
  const targets = fields.map(({ field }) => ({ field, analyzer: index.analyzerFor(field) }));
  return (source) => (terms.size === 0 ? {} : highlightDocument(source, targets, terms));
}

/** Highlights for documents found by other means (hybrid and geo search), from the query's keyword terms. */
export function keywordHighlighter(
  index: SearchIndex,
  query: Pick<KeywordQuery, 'q' | 'fields' | 'operator' | 'minimumShouldMatch'>,
): (source: Record<string, unknown>) => Record<string, string[]> {
  const fields = resolveFields(index, query.fields);
  if (fields.length === 0 || !query.q) return () => ({});
  return highlighterFor(index, fields, positiveLeaves(parseIndexQuery(index, query, fields)));
}

/** Clauses (terms and phrases) one query may hold, and phrases among them (each is verified by positions). */
export const maxQueryClauses = 1024;
export const maxQueryPhrases = 64;

/**
 * 400 `query_too_complex` past the caps, as Lucene's `maxClauseCount` (1024) refuses an oversized
 * BooleanQuery: a `q` inside the 10,000-character limit can otherwise hold hundreds of phrases, each
 * verified against positions on the main thread.
 */
function checkComplexity(ast: QueryNode): void {
  let clauses = 0;
  let phrases = 0;
  const stack: QueryNode[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'term') clauses++;
    else if (node.type === 'phrase') {
      clauses++;
      phrases++;
    } else if (node.type === 'bool') stack.push(...node.must, ...node.should, ...node.mustNot);
  }
  if (clauses > maxQueryClauses || phrases > maxQueryPhrases) {
    throw new InputError(
      'query_too_complex',
      `The query has ${clauses} clauses and ${phrases} phrases; at most ${maxQueryClauses} clauses and ${maxQueryPhrases} phrases are allowed. Remove repeated words or phrases, or split the search.`,
      { details: { clauses, phrases, maxClauses: maxQueryClauses, maxPhrases: maxQueryPhrases } },
    );
  }
}
