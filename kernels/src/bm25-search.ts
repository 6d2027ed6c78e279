import type { BitsetBlock } from './bitset-block.js';
import { KernelInvalidInputError } from './errors.js';
import { assertOpen, runTasks, usePool, withPinned, withScratch, type ExecutionMode, type KernelContext } from './kernel-context.js';
import { BM25_TERM_ENTRY_BYTES } from './kernel-exports.js';
import type { DocLengthsBlock, PostingsBlock } from './text-blocks.js';
import { emptyTopK, mergeTopK, readTopK, topKBytes, type TopK } from './top-k.js';
import { assertFinite, assertInteger, assertK, assertKnownKeys, assertRange } from './validate.js';

/** One query term looked up in one field. */
export interface Bm25Term {
  postings: PostingsBlock;
  /** The field's lengths, one per document of the segment. */
  docLengths: DocLengthsBlock;
  /** The field's average document length. */
  avgdl: number;
  idf: number;
  /** @default 1 */
  boost?: number;
  /**
   * Index of the query term this entry belongs to: entries with the same `term` (one term in
   * several fields) count as one match for minimumShouldMatch, and must be adjacent in `terms`.
   * @default the entry's position
   */
  term?: number;
  /** The field this entry was looked up in (0, 1, ...): the groups of `fieldScoring: 'best'`. @default 0 */
  field?: number;
}

export interface Bm25Segment {
  /** Added to the segment's ordinals in the answer, so segments share one id space. */
  docBase: number;
  docCount: number;
  terms: Bm25Term[];
  filter?: BitsetBlock;
}

export interface Bm25Query {
  segments: Bm25Segment[];
  k: number;
  /** @default 1.2 */
  k1?: number;
  /** @default 0.75 */
  b?: number;
  /** Distinct terms a document must match: 1 is OR, the number of terms is AND. @default 1 */
  minimumShouldMatch?: number;
  /**
   * How the entries of one query term in several fields combine. `sum`: each entry's own BM25
   * score is added (Lucene's BooleanQuery over fields). `bm25f`: per term, the fields' frequencies,
   * weighted by `boost` and normalised by each field's length and `avgdl`, saturate once and are
   * multiplied by the term's `idf` (all entries of a term must carry the same idf). `best`: per
   * `field`, the whole query's BM25 score; a document scores its best field's plus `tieBreaker`
   * times the rest. @default 'sum'
   */
  fieldScoring?: 'sum' | 'bm25f' | 'best';
  /** The share of the other fields' scores `best` adds to the best field's. @default 0 */
  tieBreaker?: number;
  /** @default 'auto' */
  mode?: ExecutionMode;
}

const FIELD_MODES = { sum: 0, bm25f: 1, best: 2 } as const;
const MAX_FIELD_GROUPS = 4096;

const MAX_TERM = 65534; // per-document match marks are u16, term + 1 must fit

function validate(ctx: KernelContext, q: Bm25Query): void {
  assertOpen(ctx);
  assertKnownKeys('bm25 query', q, ['segments', 'k', 'k1', 'b', 'minimumShouldMatch', 'fieldScoring', 'tieBreaker', 'mode']);
  if (q.fieldScoring !== undefined && !Object.hasOwn(FIELD_MODES, q.fieldScoring)) {
    throw new KernelInvalidInputError(`fieldScoring must be sum, bm25f or best, got ${String(q.fieldScoring)}`);
  }
  if (q.tieBreaker !== undefined) assertRange('tieBreaker', q.tieBreaker, 0, 1);
  assertK(q.k);
  if (q.k1 !== undefined) assertRange('k1', q.k1, 0, 1e6);
  if (q.b !== undefined) assertRange('b', q.b, 0, 1);
  if (q.minimumShouldMatch !== undefined) assertInteger('minimumShouldMatch', q.minimumShouldMatch, 1, MAX_TERM + 1);
  for (const [s, seg] of q.segments.entries()) {
    assertKnownKeys(`segments[${s}]`, seg, ['docBase', 'docCount', 'terms', 'filter']);
    assertInteger(`segments[${s}].docBase`, seg.docBase, 0, 0xffffffff);
    assertInteger(`segments[${s}].docCount`, seg.docCount, 0, 0xffffffff - seg.docBase);
    if (seg.filter) {
      ctx.blocks.assertUsable(seg.filter, `segments[${s}].filter`);
      if (seg.filter.count < seg.docCount) {
        throw new KernelInvalidInputError(`segments[${s}].filter covers ${seg.filter.count} of ${seg.docCount} documents`);
      }
    }
    for (const [t, term] of seg.terms.entries()) {
      const name = `segments[${s}].terms[${t}]`;
      assertKnownKeys(name, term, ['postings', 'docLengths', 'avgdl', 'idf', 'boost', 'term', 'field']);
      ctx.blocks.assertUsable(term.postings, `${name}.postings`);
      ctx.blocks.assertUsable(term.docLengths, `${name}.docLengths`);
      if (term.postings.maxDoc >= seg.docCount) {
        throw new KernelInvalidInputError(`${name}.postings reference document ${term.postings.maxDoc} >= docCount ${seg.docCount}`);
      }
      if (term.docLengths.count < seg.docCount) {
        throw new KernelInvalidInputError(`${name}.docLengths has ${term.docLengths.count} of ${seg.docCount} lengths`);
      }
      assertFinite(`${name}.avgdl`, term.avgdl);
      if (term.avgdl <= 0) throw new KernelInvalidInputError(`${name}.avgdl must be > 0, got ${term.avgdl}`);
      assertFinite(`${name}.idf`, term.idf);
      if (term.boost !== undefined) assertFinite(`${name}.boost`, term.boost);
      if (term.term !== undefined) assertInteger(`${name}.term`, term.term, 0, MAX_TERM);
      if (term.field !== undefined) assertInteger(`${name}.field`, term.field, 0, MAX_FIELD_GROUPS - 1);
    }
    // The kernel finds a term's entries by adjacency: a term seen again after another is an error.
    const seen = new Set<number>();
    seg.terms.forEach((term, t) => {
      const id = term.term ?? t;
      if (t > 0 && id === (seg.terms[t - 1]!.term ?? t - 1)) return;
      if (seen.has(id)) throw new KernelInvalidInputError(`segments[${s}].terms: the entries of term ${id} are not adjacent`);
      seen.add(id);
    });
  }
}

/** Accumulator bytes per document (kernels/assembly/bm25.ts): 8, and 12 more to combine fields. */
const perDoc = (fieldMode: number): number => (fieldMode === 0 ? 8 : 20);

/** Bytes a segment touches: its postings (8 per posting) and its accumulators. */
const segmentBytes = (seg: Bm25Segment, fieldMode: number): number =>
  seg.docCount * perDoc(fieldMode) + seg.terms.reduce((n, t) => n + t.postings.count * 8, 0);

/**
 * BM25 top-k over segments. Each segment is one task (inline, or one per worker when pooled), and
 * the answers merge by score then global id (docBase + ordinal).
 */
/** The top k, and how many documents matched in all (before k was applied). */
export interface Bm25Result extends TopK {
  total: number;
}

export async function bm25Search(ctx: KernelContext, q: Bm25Query): Promise<Bm25Result> {
  validate(ctx, q);
  const k1 = q.k1 ?? 1.2;
  const b = q.b ?? 0.75;
  const minMatch = q.minimumShouldMatch ?? 1;
  const fieldMode = FIELD_MODES[q.fieldScoring ?? 'sum'];
  const tie = q.tieBreaker ?? 0;
  const segments = q.segments.filter((s) => s.docCount > 0 && s.terms.length > 0);
  if (segments.length === 0) return { ...emptyTopK(), total: 0 };
  const pooled = usePool(
    ctx,
    q.mode ?? 'auto',
    segments.reduce((n, s) => n + segmentBytes(s, fieldMode), 0),
  );
  const keeps = segments.map((s) => Math.min(q.k, s.docCount));
  // Accumulators per document, then the kernel's u32 match total (8 keeps alignment).
  const sizes = segments.flatMap((s, i) => [s.terms.length * BM25_TERM_ENTRY_BYTES, s.docCount * perDoc(fieldMode) + 8, topKBytes(keeps[i]!)]);
  const blocks = segments.flatMap((s) => [s.filter, ...s.terms.flatMap((t) => [t.postings, t.docLengths])]);
  return withPinned(ctx, blocks, () =>
    withScratch(ctx, sizes, async (regions) => {
      const u32 = ctx.memory.u32;
      const f32 = ctx.memory.f32;
      const tasks = segments.map((seg, i) => {
        const [table, acc, heap] = regions.slice(i * 3, i * 3 + 3) as [(typeof regions)[0], (typeof regions)[0], (typeof regions)[0]];
        seg.terms.forEach((t, j) => {
          const e = (table.offset + j * BM25_TERM_ENTRY_BYTES) >>> 2;
          u32[e] = t.postings.docs.offset;
          u32[e + 1] = t.postings.tfs.offset;
          u32[e + 2] = t.postings.count;
          u32[e + 3] = t.docLengths.lengths.offset;
          f32[e + 4] = t.avgdl;
          u32[e + 6] = t.term ?? j;
          if (fieldMode === 1) {
            // The field's boost, and the term's idf applied once after saturation.
            f32[e + 5] = t.boost ?? 1;
            f32[e + 7] = t.idf;
          } else {
            // idf * boost in f32, as the reference computes it.
            f32[e + 5] = Math.fround(Math.fround(t.idf) * Math.fround(t.boost ?? 1));
            u32[e + 7] = t.field ?? 0;
          }
        });
        const groups = fieldMode === 2 ? seg.terms.reduce((n, t) => Math.max(n, (t.field ?? 0) + 1), 0) : 0;
        const filterPtr = seg.filter ? seg.filter.words.offset : 0;
        return {
          kernel: 'bm25Search' as const,
          args: [table.offset, seg.terms.length, k1, b, seg.docCount, acc.offset, minMatch, filterPtr, heap.offset, keeps[i]!, fieldMode, groups, tie],
        };
      });
      const counts = await runTasks(ctx, tasks, pooled);
      const lists = counts.map((n, i) => readTopK(ctx.memory, regions[i * 3 + 2]!.offset, keeps[i]!, n, segments[i]!.docBase));
      let total = 0;
      segments.forEach((seg, i) => {
        total += ctx.memory.u32[(regions[i * 3 + 1]!.offset + seg.docCount * perDoc(fieldMode)) >>> 2]!;
      });
      return { ...mergeTopK(lists, q.k), total };
    }),
  );
}
