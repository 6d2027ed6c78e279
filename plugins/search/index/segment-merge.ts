import { add, has, type Bitset } from './bitset.js';
import type { LoadedSegment } from './loaded-segment.js';
import type { KeywordField, SegmentData, TextField } from './segment.js';

/**
 * Merges segments the way Lucene does: postings are combined term by term with ordinals renumbered
 * and deleted documents dropped, so a merge never re-reads or re-analyses stored sources (which
 * would touch every stored byte of the merged documents).
 */
export function mergeSegmentData(parts: ReadonlyArray<{ data: SegmentData; deleted: Bitset }>): SegmentData {
  const remap = parts.map(({ data }) => new Int32Array(data.docCount).fill(-1));
  const ids: string[] = [];
  parts.forEach(({ data, deleted }, p) => {
    for (let ord = 0; ord < data.docCount; ord++) {
      if (has(deleted, ord)) continue;
      remap[p]![ord] = ids.length;
      ids.push(data.ids[ord]!);
    }
  });
  const docCount = ids.length;
  const words = Math.ceil(docCount / 32);
  const fieldsOf = (pick: (d: SegmentData) => Record<string, unknown>): string[] => [...new Set(parts.flatMap((p) => Object.keys(pick(p.data))))];

  const text: SegmentData['text'] = Object.create(null);
  for (const field of fieldsOf((d) => d.text)) {
    const sources = parts.map((p) => p.data.text[field]);
    const terms = [...new Set(sources.flatMap((s) => s?.terms ?? []))].sort();
    const cursors = sources.map(() => 0);
    const docs: number[] = [];
    const tfs: number[] = [];
    const posStarts: number[] = [];
    const positions: number[] = [];
    const termStarts = new Uint32Array(terms.length + 1);
    terms.forEach((term, t) => {
      termStarts[t] = docs.length;
      sources.forEach((s, p) => {
        if (!s) return;
        // Each source's terms are sorted too, so one cursor per source walks them in step.
        while (cursors[p]! < s.terms.length && s.terms[cursors[p]!]! < term) cursors[p]!++;
        if (s.terms[cursors[p]!] !== term) return;
        const i = cursors[p]!;
        for (let q = s.termStarts[i]!; q < s.termStarts[i + 1]!; q++) {
          const doc = remap[p]![s.docs[q]!]!;
          if (doc === -1) continue;
          docs.push(doc);
          tfs.push(s.tfs[q]!);
          posStarts.push(positions.length);
          for (let r = s.posStarts[q]!; r < s.posStarts[q + 1]!; r++) positions.push(s.positions[r]!);
        }
      });
    });
    termStarts[terms.length] = docs.length;
    posStarts.push(positions.length);
    const lengths = new Uint32Array(docCount);
    let sumLength = 0;
    sources.forEach((s, p) => {
      if (!s) return;
      for (let ord = 0; ord < s.lengths.length; ord++) {
        const doc = remap[p]![ord]!;
        if (doc === -1) continue;
        lengths[doc] = s.lengths[ord]!;
        sumLength += s.lengths[ord]!;
      }
    });
    // Terms whose every posting was deleted are dropped.
    const keep = terms.map((_, t) => termStarts[t + 1]! > termStarts[t]!);
    const merged: TextField = compactTerms(
      {
        terms,
        termStarts,
        docs: Uint32Array.from(docs),
        tfs: Uint32Array.from(tfs),
        posStarts: Uint32Array.from(posStarts),
        positions: Uint32Array.from(positions),
        lengths,
        sumLength,
      },
      keep,
    );
    text[field] = merged;
  }

  const keyword: SegmentData['keyword'] = Object.create(null);
  for (const field of fieldsOf((d) => d.keyword)) {
    const dict = new Map<string, number[]>();
    parts.forEach(({ data }, p) => {
      const k: KeywordField | undefined = data.keyword[field];
      if (!k) return;
      k.values.forEach((value, i) => {
        for (let q = k.valueStarts[i]!; q < k.valueStarts[i + 1]!; q++) {
          const doc = remap[p]![k.docs[q]!]!;
          if (doc === -1) continue;
          let list = dict.get(value);
          if (!list) dict.set(value, (list = []));
          list.push(doc);
        }
      });
    });
    const values = [...dict.keys()].sort();
    const valueStarts = new Uint32Array(values.length + 1);
    const docs: number[] = [];
    values.forEach((v, i) => {
      valueStarts[i] = docs.length;
      for (const d of dict.get(v)!) docs.push(d);
    });
    valueStarts[values.length] = docs.length;
    keyword[field] = { values, valueStarts, docs: Uint32Array.from(docs) };
  }

  const numeric: SegmentData['numeric'] = Object.create(null);
  for (const field of fieldsOf((d) => d.numeric)) {
    const min = new Float64Array(docCount).fill(NaN);
    const max = new Float64Array(docCount).fill(NaN);
    parts.forEach(({ data }, p) => {
      const col = data.numeric[field];
      if (!col) return;
      for (let ord = 0; ord < data.docCount; ord++) {
        const doc = remap[p]![ord]!;
        if (doc === -1) continue;
        min[doc] = col.min[ord]!;
        max[doc] = col.max[ord]!;
      }
    });
    numeric[field] = { min, max };
  }

  const boolean: SegmentData['boolean'] = Object.create(null);
  for (const field of fieldsOf((d) => d.boolean)) {
    const col = new Uint8Array(docCount).fill(2);
    parts.forEach(({ data }, p) => {
      const src = data.boolean[field];
      if (!src) return;
      for (let ord = 0; ord < data.docCount; ord++) {
        const doc = remap[p]![ord]!;
        if (doc !== -1) col[doc] = src[ord]!;
      }
    });
    boolean[field] = col;
  }

  const exists: SegmentData['exists'] = Object.create(null);
  for (const field of fieldsOf((d) => d.exists)) {
    const set = new Uint32Array(words);
    parts.forEach(({ data }, p) => {
      const src = data.exists[field];
      if (!src) return;
      for (let ord = 0; ord < data.docCount; ord++) {
        const doc = remap[p]![ord]!;
        if (doc !== -1 && has(src, ord)) add(set, doc);
      }
    });
    exists[field] = set;
  }

  let vectors: SegmentData['vectors'];
  const dims = parts.find((p) => p.data.vectors)?.data.vectors?.dims;
  if (dims !== undefined) {
    const data = new Float32Array(docCount * dims);
    const present = new Uint32Array(words);
    parts.forEach(({ data: seg }, p) => {
      const src = seg.vectors;
      if (!src) return;
      for (let ord = 0; ord < seg.docCount; ord++) {
        const doc = remap[p]![ord]!;
        if (doc === -1 || !has(src.present, ord)) continue;
        data.set(src.data.subarray(ord * dims, (ord + 1) * dims), doc * dims);
        add(present, doc);
      }
    });
    vectors = { dims, data, present };
  }

  const geo: NonNullable<SegmentData['geo']> = Object.create(null);
  for (const field of [...new Set(parts.flatMap((p) => Object.keys(p.data.geo ?? {})))]) {
    const column = { lats: new Float64Array(docCount), lons: new Float64Array(docCount), present: new Uint32Array(words) };
    parts.forEach(({ data: seg }, p) => {
      const src = seg.geo?.[field];
      if (!src) return;
      for (let ord = 0; ord < seg.docCount; ord++) {
        const doc = remap[p]![ord]!;
        if (doc === -1 || !has(src.present, ord)) continue;
        column.lats[doc] = src.lats[ord]!;
        column.lons[doc] = src.lons[ord]!;
        add(column.present, doc);
      }
    });
    geo[field] = column;
  }

  return { docCount, ids, text, keyword, numeric, boolean, exists, ...(Object.keys(geo).length ? { geo } : {}), ...(vectors ? { vectors } : {}) };
}

function compactTerms(field: TextField, keep: boolean[]): TextField {
  if (keep.every(Boolean)) return field;
  const terms: string[] = [];
  const starts: number[] = [];
  field.terms.forEach((term, t) => {
    if (!keep[t]) return;
    terms.push(term);
    starts.push(field.termStarts[t]!);
  });
  starts.push(field.termStarts[field.terms.length]!);
  return { ...field, terms, termStarts: Uint32Array.from(starts) };
}

/**
 * The merge policy, tiered like Lucene's: the `factor` smallest segments (by live documents) go
 * into one, while more than `maxSegments` remain (undefined: nothing to merge). Merging the small
 * ones first keeps the work per document logarithmic in the index size, where merging everything
 * into one each time would be quadratic under a long ingest.
 */
export function mergeSelection(segments: readonly LoadedSegment[], maxSegments: number, factor: number): LoadedSegment[] | undefined {
  const absorbed = absorbSelection(segments);
  if (absorbed) return absorbed;
  if (segments.length <= Math.max(maxSegments, 1)) return undefined;
  const bySize = [...segments].sort((a, b) => a.data.docCount - a.deletedCount - (b.data.docCount - b.deletedCount));
  return bySize.slice(0, Math.max(2, Math.min(factor, segments.length - maxSegments + 1)));
}

/**
 * The share of the largest segment's live documents that the other segments must hold together
 * before an HNSW index merges them all into the largest (see absorbSelection).
 */
export const ABSORB_RATIO = 1 / 8;

const live = (s: LoadedSegment): number => s.data.docCount - s.deletedCount;

/**
 * The vector-aware part of the policy, for indexes with HNSW graphs. A query walks every
 * segment's graph, and a walk costs about the same on 25,000 rows as on 200,000 (it grows with
 * the log of the size), so 8 segments answer at about a quarter of one segment's rate. Such an
 * index therefore merges everything into its largest segment as soon as the others together hold
 * `ABSORB_RATIO` of its live documents, and that largest segment's graph is ready: the merge then
 * starts from that graph (mergeOrder) and only inserts the others' rows.
 *
 * Cost, bounded: every absorption grows the largest segment by at least 1/8, so over an ingest of
 * N documents the bytes rewritten total at most ~9N (plus the tiered merges of the small ones),
 * and a row is inserted into a graph at most once per tiered merge it takes part in plus once
 * when absorbed; the rows of the largest segment are never inserted again. A graph still building
 * is waited for (the build's end schedules the next merge check), so no build is thrown away and
 * redone from scratch. When the largest segment has deletions its graph cannot seed the merge, so
 * absorbing means building the whole graph again: that waits until the others hold as many live
 * documents as it does (the size doubles, so the rebuilds stay logarithmic).
 */
export function absorbSelection(segments: readonly LoadedSegment[]): LoadedSegment[] | undefined {
  if (segments.length < 2 || !segments.some((s) => s.graph)) return undefined;
  const largest = segments.reduce((a, b) => (live(b) > live(a) ? b : a));
  if (largest.graph?.status === 'building') return undefined;
  const rest = segments.reduce((sum, s) => (s === largest ? sum : sum + live(s)), 0);
  const seedable = largest.deletedCount === 0 && largest.graph?.status === 'ready';
  return rest >= live(largest) * (seedable ? ABSORB_RATIO : 1) ? [...segments] : undefined;
}

/**
 * With graphs, the largest merged segment that has a ready graph and no deletions goes first, so
 * its rows keep their ordinals and its graph seeds the merged one (Lucene does the same): only
 * the other segments' vectors are inserted.
 */
export function mergeOrder(selected: readonly LoadedSegment[]): { ordered: readonly LoadedSegment[]; seed?: LoadedSegment } {
  const seed = selected
    .filter((s) => s.deletedCount === 0 && s.graph?.status === 'ready' && s.graph.block)
    .sort((a, b) => b.data.docCount - a.data.docCount)[0];
  return seed ? { ordered: [seed, ...selected.filter((s) => s !== seed)], seed } : { ordered: selected };
}
