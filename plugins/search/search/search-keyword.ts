import type { Deadline } from './deadline.js';
import { lookup } from '../index/segment.js';
import type { Bm25Segment, Bm25Term, KernelRunner, PostingsBlock, BitsetBlock } from 'tessera-runtime/kernels';
import { andInPlace, andNotInPlace, emptySet, fullSet, has, members, orInPlace, popcount, type Bitset } from '../index/bitset.js';
import { fieldValues } from '../index/field-path.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import type { Ranked } from './fetch.js';
import { isFlatDisjunction, matchSet, phraseMatches } from './match-set.js';
import type { PhraseQuery, QueryNode, TermQuery } from '../query/query-ast.js';
import { segmentColumns } from '../index/segment-columns.js';
import { keywordSortColumn, READ_SOURCE, sortKeyOf, sourceSortColumn, type SortKey } from './sort-columns.js';
import type { LoadedSegment } from '../index/loaded-segment.js';
import type { SearchIndex } from '../index/search-index.js';
import { checkComplexity, type TextQuery } from './text-query.js';
import { relatedBoost } from './query-expansion.js';

export type { Hit } from './fetch.js';

/** How the keyword ranking phase scores and orders (the request's options, `q` already planned). */
export interface KeywordRanking {
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
  sort?: Array<{ field: string; order: 'asc' | 'desc' }>;
  /** The search's time budget, checked at safe points. */
  deadline?: Deadline;
  filter?: FilterNode;
}

/** Per document ranked with an expansion: the expansion's terms it holds, their sources, and whether it was boosted as related. */
export interface ExpansionMatch {
  terms: string[];
  boosted: boolean;
  entities: string[];
}

export const fieldScorings = ['bm25f', 'sum', 'best'] as const;
export type FieldScoring = (typeof fieldScorings)[number];

function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The keyword ranking phase: BM25 over the index's segments, the best `want` documents (ids and
 * scores), and how many match. The kernel scores every positive leaf (each term in each searched
 * field, phrases as postings of their matches) and counts matches; JS computes an exact match set
 * only when the query needs one (must / mustNot / phrases / nesting), and the filter and
 * tombstones reach the kernel as one bitset per segment.
 */
export async function rankKeyword(
  index: SearchIndex,
  runner: KernelRunner,
  text: TextQuery,
  options: KeywordRanking,
  want: number,
): Promise<{ total: number; ranked: Ranked[]; expansion?: Map<string, ExpansionMatch> }> {
  const { fields, ast, repeats, expansion } = text;
  // An expansion's leaves follow the query's, weighted below them (query-expansion.ts).
  const leaves = expansion ? [...text.leaves, ...expansion.leaves] : text.leaves;
  const own = text.leaves.length;
  const segments = index.segments;
  checkComplexity(ast);
  if (index.docCount === 0 || segments.length === 0) return { total: 0, ranked: [] };

  const scope = { fields: fields.map((f) => f.field) };
  const qtf = (t: number): number => (t >= own ? expansion!.weights[t - own]! : options.queryTermFrequency === false ? 1 : repeats[t]!);
  const fieldScoring: FieldScoring = fields.length > 1 ? (options.fieldScoring ?? 'bm25f') : 'sum';
  const flat: Extract<QueryNode, { type: 'bool' }> | undefined =
    expansion && expansion.leaves.length > 0
      ? undefined
      : ast.type === 'term'
        ? { type: 'bool', must: [], should: [ast], mustNot: [], minimumShouldMatch: 1 }
        : isFlatDisjunction(ast)
          ? ast
          : undefined;
  // Per segment, per expansion leaf: the documents holding it (the match set's union and `explain`).
  const expansionSets: Bitset[][] = [];

  // Collection statistics of these segments, shared with the embedders (collection-statistics.ts).
  const statistics = index.statistics();
  const docsTotal = statistics.docCount;
  const df = (field: string, term: string): number => statistics.docFreq(field, term);
  // BM25F's one idf per word over the combined field: its document frequency is the largest of
  // the searched fields' (Lucene's CombinedFieldQuery), which needs no union of postings.
  const combinedIdf = (leaf: TermQuery | PhraseQuery): number => {
    const dfOf = (term: string): number => (leaf.field !== undefined ? df(leaf.field, term) : statistics.maxDocFreq(term, scope.fields));
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
      if (options.filter) {
        const passing = evaluateFilter(options.filter, segmentColumns(seg), count);
        allowed = allowed ? andInPlace(allowed, passing) : passing;
      }
      let exact: Bitset | undefined;
      if (!flat) {
        exact = matchSet(ast, seg.data, scope, new Map(), options.deadline);
        if (expansion) {
          // What `q` matches, or what holds an expanded term and none of the words `q` excludes.
          const sets = expansion.leaves.map((leaf) => matchSet(leaf, seg.data, scope, new Map(), options.deadline));
          expansionSets.push(sets);
          const any = sets.reduce((union, set) => orInPlace(union, set), emptySet(count));
          if (ast.type === 'bool' && ast.mustNot.length > 0) {
            andNotInPlace(any, matchSet({ type: 'bool', must: [], should: ast.mustNot, mustNot: [], minimumShouldMatch: 1 }, seg.data, scope));
          }
          orInPlace(exact, any);
        }
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
              avgdl: statistics.avgFieldLength(field),
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
            terms.push({ postings, docLengths: loaded.lengths, avgdl: statistics.avgFieldLength(field), idf: phraseIdf, boost, term: t, field: f });
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

    const sorting = options.sort !== undefined && options.sort.length > 0;
    const scoring = leaves.length > 0 && ast.type !== 'all';
    // Related documents are boosted after scoring: every match is ranked, as for a sort.
    const boosting = expansion !== undefined && expansion.boostDocIds.size > 0 && scoring;
    let ranked: Array<{ global: number; score: number }>;
    let total: number;
    if (scoring) {
      const result = await runner.bm25({
        segments: bm25Segments,
        k: Math.max(1, sorting || boosting ? docsTotal : want),
        k1: index.record.settings.k1,
        b: index.record.settings.b,
        minimumShouldMatch: flat ? Math.max(1, flat.minimumShouldMatch) : 1,
        fieldScoring,
        tieBreaker: options.tieBreaker ?? 0,
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

    const idOf = (global: number): string => {
      let s = segments.length - 1;
      while (bases[s]! > global) s--;
      return segments[s]!.data.ids[global - bases[s]!]!;
    };
    options.deadline?.check();
    if (boosting) {
      for (const r of ranked) if (expansion!.boostDocIds.has(idOf(r.global))) r.score *= relatedBoost;
      if (!sorting) ranked.sort((a, b) => b.score - a.score || a.global - b.global);
    }
    if (sorting) ranked = sortBy(index, ranked, segments, bases, options.sort!, options.deadline);
    options.deadline?.check();
    const page = ranked.slice(0, want).map(({ global, score }) => ({ id: idOf(global), score, global }));
    if (!expansion) return { total, ranked: page.map(({ id, score }) => ({ id, score })) };
    const matches = new Map<string, ExpansionMatch>();
    for (const { id, global } of page) {
      let s = segments.length - 1;
      while (bases[s]! > global) s--;
      const sets = expansionSets[s];
      const held = expansion.leaves.flatMap((_, l) => (sets !== undefined && has(sets[l]!, global - bases[s]!) ? [l] : []));
      const terms = [...new Set(held.map((l) => expansion.labels[l]!))];
      const entities = [...new Set(held.flatMap((l) => expansion.sources[l] ?? []))];
      matches.set(id, { terms, boosted: boosting && expansion.boostDocIds.has(id), entities });
    }
    return { total, ranked: page.map(({ id, score }) => ({ id, score })), expansion: matches };
  } finally {
    for (const block of temporary) runner.release(block);
  }
}

function sortBy(
  index: SearchIndex,
  ranked: Array<{ global: number; score: number }>,
  segments: readonly LoadedSegment[],
  bases: readonly number[],
  sort: NonNullable<KeywordRanking['sort']>,
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
        return source === undefined ? undefined : sortKeyOf(fieldValues(source, field));
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
                return source === undefined ? undefined : fieldValues(source, field);
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
