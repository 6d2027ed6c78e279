import { describe, expect, it } from 'vitest';
import { getAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { escapeHtml, highlight, highlightDocument } from '../../../plugins/search/search/highlight.js';

const standard = getAnalyzer('standard');
const english = getAnalyzer('english');
const story =
  'The quick brown fox jumps over the lazy dog. Meanwhile, far away, a <cat> & "mouse" were sleeping soundly ' +
  'in the barn while the fox kept running through the fields until nightfall came to the valley and the dog barked.';
const visible = (fragment: string): string => fragment.replaceAll('<mark>', '').replaceAll('</mark>', '');

describe('highlight', () => {
  it('returns the whole text with each match marked when it fits in one fragment', () => {
    expect(highlight('Dune is a novel by Frank Herbert.', standard, new Set(['dune', 'herbert']))).toEqual([
      '<mark>Dune</mark> is a novel by Frank <mark>Herbert</mark>.',
    ]);
  });

  it('returns [] when no term matches, or no terms are given', () => {
    expect([highlight(story, standard, new Set(['elephant'])), highlight(story, standard, new Set()), highlight('', standard, new Set(['x']))]).toEqual([
      [],
      [],
      [],
    ]);
  });

  it('builds bounded windows around matches, on word boundaries, in text order', () => {
    const fragments = highlight(story, english, new Set(['fox', 'dog']), { fragmentSize: 40 });
    expect(fragments).toEqual([
      'brown <mark>fox</mark> jumps over the lazy <mark>dog</mark>.',
      'barn while the <mark>fox</mark> kept running',
      'came to the valley and the <mark>dog</mark> barked.',
    ]);
    for (const f of fragments) expect(visible(f).length).toBeLessThanOrEqual(40);
  });

  it('picks fragments by distinct terms, preferring terms not shown yet, and returns them in text order', () => {
    expect(highlight(story, english, new Set(['fox', 'dog']), { fragmentSize: 40, numberOfFragments: 1 })).toEqual([
      'brown <mark>fox</mark> jumps over the lazy <mark>dog</mark>.',
    ]);
    expect(highlight(story, english, new Set(['fox', 'valley']), { fragmentSize: 30, numberOfFragments: 2 })).toEqual([
      'quick brown <mark>fox</mark> jumps over',
      'came to the <mark>valley</mark> and the dog',
    ]);
  });

  it('escapes HTML outside the tags so a fragment is safe to render', () => {
    expect(highlight(story, standard, new Set(['cat', 'mouse']), { fragmentSize: 30 })).toEqual([
      'a &lt;<mark>cat</mark>&gt; &amp; &quot;<mark>mouse</mark>&quot; were',
    ]);
    expect(highlight('<script>alert("x")</script> alert', standard, new Set(['alert']))).toEqual([
      '&lt;script&gt;<mark>alert</mark>(&quot;x&quot;)&lt;/script&gt; <mark>alert</mark>',
    ]);
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('marks the original text of analysed terms: stems, case and accents', () => {
    expect(highlight('Running runners run', english, new Set(['run']))).toEqual(['<mark>Running</mark> runners <mark>run</mark>']);
    expect(highlight('CAFÉ au lait', 'standard', new Set(['cafe']))).toEqual(['<mark>CAFÉ</mark> au lait']);
  });

  it('takes custom tags and cuts a word longer than the fragment size', () => {
    expect(
      highlight('a Supercalifragilistic word', standard, new Set(['supercalifragilistic']), { fragmentSize: 10, preTag: '<em>', postTag: '</em>' }),
    ).toEqual(['<em>Supercalif</em>']);
  });

  it('bounds every fragment by fragmentSize and numberOfFragments, whatever the size', () => {
    const text = story.repeat(5);
    for (const fragmentSize of [5, 12, 25, 60, 150]) {
      for (const numberOfFragments of [1, 2, 4]) {
        const fragments = highlight(text, english, new Set(['fox', 'dog', 'mous', 'barn']), { fragmentSize, numberOfFragments });
        expect(fragments.length).toBe(numberOfFragments);
        for (const f of fragments) {
          expect(f).toContain('<mark>');
          expect(visible(f).replace(/&[a-z#0-9]+;/g, '_').length).toBeLessThanOrEqual(fragmentSize);
        }
      }
    }
  });

  it('never repeats text across fragments', () => {
    const text = Array.from({ length: 12 }, (_, i) => `w${i} hit`).join(' ');
    const fragments = highlight(text, standard, new Set(['hit']), { fragmentSize: 14, numberOfFragments: 5 });
    expect(text.slice(0, 30)).toBe('w0 hit w1 hit w2 hit w3 hit w4');
    expect(fragments).toEqual([1, 3, 5, 7, 9].map((i) => `<mark>hit</mark> w${i} <mark>hit</mark>`));
  });
});

describe('highlightDocument', () => {
  it('keys fragments by field path, reads nested and multi-valued fields, and leaves out fields without a match', () => {
    const source = {
      title: 'The fox',
      body: { text: ['Nothing here.', 'A fox and a dog.', 'Dogs bark.'] },
      tags: 'fox',
      count: 3,
    };
    expect(
      highlightDocument(
        source,
        [
          { field: 'title', analyzer: standard },
          { field: 'body.text', analyzer: 'english', terms: new Set(['dog', 'fox']) },
          { field: 'missing', analyzer: standard },
          { field: 'count', analyzer: standard },
          { field: 'tags', analyzer: 'keyword', terms: new Set(['cat']) },
        ],
        new Set(['fox']),
      ),
    ).toEqual({
      title: ['The <mark>fox</mark>'],
      'body.text': ['A <mark>fox</mark> and a <mark>dog</mark>.', '<mark>Dogs</mark> bark.'],
    });
  });

  it('caps a multi-valued field at numberOfFragments, keeping the best in value order', () => {
    const source = { notes: ['fox', 'fox and dog', 'dog', 'fox dog fox'] };
    expect(highlightDocument(source, [{ field: 'notes', analyzer: standard }], new Set(['fox', 'dog']), { numberOfFragments: 2 })).toEqual({
      notes: ['<mark>fox</mark> and <mark>dog</mark>', '<mark>fox</mark> <mark>dog</mark> <mark>fox</mark>'],
    });
  });
});
