import { describe, expect, it } from 'vitest';
import { englishAnalyzer, standardAnalyzer, type Analyzer } from '../../../plugins/search/analysis/analyzer.js';
import { termIdCount, termOf, TermPositions } from '../../../plugins/search/analysis/term-ids.js';
import { buildSegment, type IndexableDocument, type TextField } from '../../../plugins/search/index/segment.js';
import { cranfieldAvailable, loadCranfield } from './support/cranfield.js';

/**
 * The indexing path (analyzers' `analyzeIds`, the word tables and the typed-array postings
 * builder) must index exactly what `analyze` gives: the same terms at the same positions, so that
 * search results cannot move. Checked against `analyze` and a plain reference build of postings.
 */

const tricky = [
  'The Flow of the heated AIR',
  "it's the wing's generalizations, IT'S THE WING'S",
  'Naïve Café flows 3.14 x15 東京 ﬁnal Ｆull straße Œuvre',
  "under_score __ _ a.b.c e.g. 1,000,000 o'clock rock'n'roll",
  'généralisation généralisations GÉNÉRALISATION Generalisation',
  '',
  '   ',
  'the of and',
  'Ünïcödé mixed ASCII words, then ascii again: Ünïcödé',
];

function idsOf(analyzer: Analyzer, text: string): Array<[string, number]> {
  const out = new TermPositions();
  analyzer.analyzeIds!(text, out);
  return Array.from({ length: out.length }, (_, i) => [termOf(out.ids[i]!), out.positions[i]!]);
}

function referenceField(docs: readonly IndexableDocument[], field: string, analyzer: Analyzer): TextField {
  const postings = new Map<string, Array<{ doc: number; positions: number[] }>>();
  const lengths = new Uint32Array(docs.length);
  let sumLength = 0;
  docs.forEach((doc, ord) => {
    const values = doc.fields[field]?.values ?? [];
    let base = 0;
    for (const value of values) {
      let last = -1;
      for (const token of analyzer.analyze(String(value))) {
        const position = base + token.position;
        last = position;
        lengths[ord]!++;
        const list = postings.get(token.term) ?? [];
        postings.set(token.term, list);
        if (list.at(-1)?.doc !== ord) list.push({ doc: ord, positions: [] });
        list.at(-1)!.positions.push(position);
      }
      base = last + 100;
    }
    sumLength += lengths[ord]!;
  });
  const terms = [...postings.keys()].sort();
  const all = terms.flatMap((t) => postings.get(t)!);
  const termStarts: number[] = [];
  let p = 0;
  for (const t of terms) {
    termStarts.push(p);
    p += postings.get(t)!.length;
  }
  termStarts.push(p);
  const posStarts: number[] = [];
  let q = 0;
  for (const posting of all) {
    posStarts.push(q);
    q += posting.positions.length;
  }
  posStarts.push(q);
  return {
    terms,
    termStarts: Uint32Array.from(termStarts),
    docs: Uint32Array.from(all.map((x) => x.doc)),
    tfs: Uint32Array.from(all.map((x) => x.positions.length)),
    posStarts: Uint32Array.from(posStarts),
    positions: Uint32Array.from(all.flatMap((x) => x.positions)),
    lengths,
    sumLength,
  };
}

describe('analyzeIds', () => {
  for (const analyzer of [standardAnalyzer, englishAnalyzer]) {
    it(`gives the ${analyzer.name} analyzer's terms and positions, on tricky text and twice over (memo hits)`, () => {
      for (let round = 0; round < 2; round++) {
        for (const text of tricky) expect(idsOf(analyzer, text)).toEqual(analyzer.analyze(text).map((t) => [t.term, t.position]));
      }
    });

    it.skipIf(!cranfieldAvailable())(`gives the ${analyzer.name} analyzer's terms on every Cranfield document`, () => {
      for (const doc of loadCranfield().docs) {
        const text = `${doc.title}\n${doc.text}`;
        expect(idsOf(analyzer, text)).toEqual(analyzer.analyze(text).map((t) => [t.term, t.position]));
      }
    });
  }
});

describe('buildSegment postings', () => {
  const docs: IndexableDocument[] = tricky.map((text, i) => ({
    id: `d${i}`,
    fields: {
      title: { type: 'text', values: [text] },
      // Multi-valued, with an empty value and a repeat: the position gap and repeated terms.
      body: { type: 'text', values: [text, '', tricky[(i + 1) % tricky.length]!, text] },
    },
  }));

  it('equals a plain build from analyze(): terms, postings, positions, lengths', () => {
    const segment = buildSegment(docs, { title: englishAnalyzer, body: standardAnalyzer });
    expect(segment.text.title).toEqual(referenceField(docs, 'title', englishAnalyzer));
    expect(segment.text.body).toEqual(referenceField(docs, 'body', standardAnalyzer));
  });

  it('interns the terms of an analyzer without analyzeIds', () => {
    const plain: Analyzer = { name: 'plain', analyze: (text) => englishAnalyzer.analyze(text) };
    const segment = buildSegment(docs, { title: plain, body: plain });
    expect(segment.text.body).toEqual(referenceField(docs, 'body', englishAnalyzer));
  });

  it.skipIf(!cranfieldAvailable())('equals a plain build on Cranfield, title and text in english', () => {
    const cranfield: IndexableDocument[] = loadCranfield().docs.map((d) => ({
      id: d.id,
      fields: { title: { type: 'text', values: [d.title] }, text: { type: 'text', values: [d.text] } },
    }));
    const segment = buildSegment(cranfield, { title: englishAnalyzer, text: englishAnalyzer });
    expect(segment.text.title).toEqual(referenceField(cranfield, 'title', englishAnalyzer));
    expect(segment.text.text).toEqual(referenceField(cranfield, 'text', englishAnalyzer));
  });

  it('drops the interned ids past the bound between builds, and the next build is still exact', () => {
    // 270k distinct words in one build: over the bound of 262,144 ids, so the next build starts afresh.
    const words = Array.from({ length: 270_000 }, (_, i) => `w${i.toString(36)}`);
    const big: IndexableDocument[] = Array.from({ length: 270 }, (_, d) => ({
      id: `b${d}`,
      fields: { body: { type: 'text', values: [words.slice(d * 1000, (d + 1) * 1000).join(' ')] } },
    }));
    buildSegment(big, { body: standardAnalyzer });
    expect(termIdCount()).toBeGreaterThan(262_144);
    const segment = buildSegment(docs, { title: englishAnalyzer, body: standardAnalyzer });
    expect(termIdCount()).toBeLessThan(1000);
    expect(segment.text.title).toEqual(referenceField(docs, 'title', englishAnalyzer));
    expect(segment.text.body).toEqual(referenceField(docs, 'body', standardAnalyzer));
  });
});
