/** One text field of a segment: its term dictionary, postings with positions, and length norms. */
export interface TextField {
  /** Sorted terms; term i's postings are [termStarts[i], termStarts[i + 1]). */
  terms: string[];
  termStarts: Uint32Array;
  docs: Uint32Array;
  tfs: Uint32Array;
  /** Posting p's positions are positions[posStarts[p] .. posStarts[p + 1]). */
  posStarts: Uint32Array;
  positions: Uint32Array;
  /** Tokens indexed per document (0 where the field is absent): the BM25 length norm. */
  lengths: Uint32Array;
  sumLength: number;
}
