import stem from 'wink-porter2-stemmer';
import type { BenchDoc, SearchAdapter } from './adapter.js';

/** Lucene's English stop words (EnglishAnalyzer's default set). */
const STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** Lower-cased letter/digit runs, Lucene stop words dropped, Porter2-stemmed. */
function analyse(text: string): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) if (!STOP_WORDS.has(word)) out.push(stem(word));
  return out;
}

/**
 * The plain BM25 reference of ../shared/data's sanity figures: one field (title and text joined),
 * k1 0.9, b 0.4 (Anserini's defaults), idf log(1 + (N - df + 0.5) / (df + 0.5)), a term-at-a-time
 * accumulator in Maps. `queryTermFrequency`: a word written twice in the query counts twice (as
 * Anserini's bag-of-words query does); without it each distinct word counts once.
 */
export class Bm25ReferenceAdapter implements SearchAdapter {
  readonly name: string;
  readonly description: string;
  private postings = new Map<string, Array<[number, number]>>();
  private lengths: number[] = [];
  private ids: string[] = [];
  private avgdl = 1;

  constructor(private readonly queryTermFrequency: boolean) {
    this.name = queryTermFrequency ? 'bm25-reference' : 'bm25-reference-once';
    this.description = `plain BM25 (k1 0.9, b 0.4, Porter2, Lucene stop words, one field), ${queryTermFrequency ? 'repeated query words count per occurrence' : 'each distinct query word once'}`;
  }

  async build(docs: BenchDoc[]): Promise<void> {
    docs.forEach((d, i) => {
      const terms = analyse(`${d.title}\n${d.text}`);
      this.ids.push(d.id);
      this.lengths.push(terms.length);
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let list = this.postings.get(t);
        if (!list) this.postings.set(t, (list = []));
        list.push([i, n]);
      }
    });
    this.avgdl = Math.max(1, this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length));
  }

  async search(query: string, k: number): Promise<string[]> {
    const k1 = 0.9;
    const b = 0.4;
    const n = this.ids.length;
    const qtf = new Map<string, number>();
    for (const t of analyse(query)) qtf.set(t, this.queryTermFrequency ? (qtf.get(t) ?? 0) + 1 : 1);
    const scores = new Map<number, number>();
    for (const [term, times] of qtf) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [d, tf] of list) {
        const s = (times * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.lengths[d]!) / this.avgdl));
        scores.set(d, (scores.get(d) ?? 0) + s);
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, k)
      .map(([d]) => this.ids[d]!);
  }

  async close(): Promise<void> {
    this.postings.clear();
  }
}
