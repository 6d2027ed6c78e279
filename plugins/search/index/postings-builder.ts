import type { Analyzer } from '../analysis/analyzer.js';
import { internTerm, termIdCount, termOf, TermPositions } from '../analysis/term-ids.js';
import { analyzedPart } from '../analysis/text-limits.js';
import type { TextField } from './text-field.js';

/** Gap between the values of a multi-valued text field, so a phrase never spans two values. */
const POSITION_GAP = 100;

const scratch = new TermPositions();

/**
 * One text field's postings for a segment being built. Every token goes into three growable typed
 * columns (term, document, position) in document order; `build()` counting-sorts them by term, so
 * a term's postings come out in document order with each document's positions in order. No array
 * per term and no object per token: the per-term JS arrays were most of the build's garbage.
 */
export class PostingsBuilder {
  readonly lengths: Uint32Array;
  private sum = 0;
  /** Interned term id -> this field's term number + 1 (0: not seen in this segment). */
  private localOf: Int32Array;
  /** This field's term number -> interned id, and the last document that had it. */
  private globals: number[] = [];
  private lastDoc = new Int32Array(1024);
  private postingCount = 0;
  private tokTerm = new Uint32Array(4096);
  private tokDoc = new Uint32Array(4096);
  private tokPos = new Uint32Array(4096);
  private tokens = 0;

  constructor(docCount: number) {
    this.lengths = new Uint32Array(docCount);
    this.localOf = new Int32Array(Math.max(1024, termIdCount() + 1024));
  }

  /** Adds document `ord`'s values; documents must come in ordinal order. */
  add(ord: number, values: readonly unknown[], analyzer: Analyzer): void {
    let base = 0;
    let length = 0;
    for (const value of values) {
      const text = analyzedPart(String(value));
      scratch.clear();
      if (analyzer.analyzeIds) analyzer.analyzeIds(text, scratch);
      else for (const token of analyzer.analyze(text)) scratch.push(internTerm(token.term), token.position);
      const n = scratch.length;
      if (this.tokens + n > this.tokTerm.length) this.growTokens(this.tokens + n);
      const ids = scratch.ids;
      const positions = scratch.positions;
      let last = -1;
      for (let i = 0; i < n; i++) {
        const id = ids[i]!;
        if (id >= this.localOf.length) this.growLocalOf(id);
        let local = this.localOf[id]! - 1;
        if (local < 0) {
          local = this.globals.length;
          this.globals.push(id);
          this.localOf[id] = local + 1;
          if (local === this.lastDoc.length) this.growLastDoc();
          this.lastDoc[local] = -1;
        }
        if (this.lastDoc[local] !== ord) {
          this.lastDoc[local] = ord;
          this.postingCount++;
        }
        const position = base + positions[i]!;
        last = position;
        const t = this.tokens++;
        this.tokTerm[t] = local;
        this.tokDoc[t] = ord;
        this.tokPos[t] = position;
      }
      length += n;
      base = last + POSITION_GAP;
    }
    this.lengths[ord] = length;
    this.sum += length;
  }

  build(): TextField {
    const termCount = this.globals.length;
    const names = this.globals.map(termOf);
    const order = Array.from({ length: termCount }, (_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
    const rank = new Uint32Array(termCount);
    for (let r = 0; r < termCount; r++) rank[order[r]!] = r;

    // Counting sort of the tokens by term rank: stable, so document and position order survive.
    const tokenStarts = new Uint32Array(termCount + 1);
    for (let t = 0; t < this.tokens; t++) tokenStarts[rank[this.tokTerm[t]!]! + 1]!++;
    for (let r = 0; r < termCount; r++) tokenStarts[r + 1]! += tokenStarts[r]!;
    const cursor = tokenStarts.slice(0, termCount);
    const positions = new Uint32Array(this.tokens);
    const sortedDocs = new Uint32Array(this.tokens);
    for (let t = 0; t < this.tokens; t++) {
      const slot = cursor[rank[this.tokTerm[t]!]!]!++;
      positions[slot] = this.tokPos[t]!;
      sortedDocs[slot] = this.tokDoc[t]!;
    }

    const termStarts = new Uint32Array(termCount + 1);
    const docs = new Uint32Array(this.postingCount);
    const tfs = new Uint32Array(this.postingCount);
    const posStarts = new Uint32Array(this.postingCount + 1);
    let p = 0;
    for (let r = 0; r < termCount; r++) {
      termStarts[r] = p;
      const end = tokenStarts[r + 1]!;
      for (let q = tokenStarts[r]!; q < end; q++) {
        const doc = sortedDocs[q]!;
        if (p > termStarts[r]! && docs[p - 1] === doc) {
          tfs[p - 1]!++;
          continue;
        }
        docs[p] = doc;
        tfs[p] = 1;
        posStarts[p] = q;
        p++;
      }
    }
    termStarts[termCount] = p;
    posStarts[p] = this.tokens;
    return {
      terms: order.map((i) => names[i]!),
      termStarts,
      docs,
      tfs,
      posStarts,
      positions,
      lengths: this.lengths,
      sumLength: this.sum,
    };
  }

  private growTokens(needed: number): void {
    const size = Math.max(needed, this.tokTerm.length * 2);
    const grow = (a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> => {
      const b = new Uint32Array(size);
      b.set(a.subarray(0, this.tokens));
      return b;
    };
    this.tokTerm = grow(this.tokTerm);
    this.tokDoc = grow(this.tokDoc);
    this.tokPos = grow(this.tokPos);
  }

  private growLocalOf(id: number): void {
    const b = new Int32Array(Math.max(id + 1, this.localOf.length * 2));
    b.set(this.localOf);
    this.localOf = b;
  }

  private growLastDoc(): void {
    const b = new Int32Array(this.lastDoc.length * 2);
    b.set(this.lastDoc);
    this.lastDoc = b;
  }
}
