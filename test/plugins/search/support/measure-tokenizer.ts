/**
 * Tokenizer and analyzer throughput on the WordNet corpus (117,791 docs, title + gloss), by hand:
 *   cd <repo root>; npx tsc --noEmit false --outDir .tmp/build && node .tmp/build/test/plugins/search/support/measure-tokenizer.js
 * It first checks that the fast path and Intl.Segmenter give the same tokens on the whole corpus.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { englishAnalyzer, standardAnalyzer } from '../../../../plugins/search/analysis/analyzer.js';
import { tokenize } from '../../../../plugins/search/analysis/tokenizer.js';

const file = resolve(process.cwd(), '../shared/data/corpus/wordnet_glosses.jsonl.gz');
const texts = gunzipSync(readFileSync(file))
  .toString('utf8')
  .split('\n')
  .filter(Boolean)
  .flatMap((line) => {
    const doc = JSON.parse(line) as { title: string; text: string };
    return [doc.title, doc.text];
  });

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
let mismatched = 0;
for (const text of texts) {
  const expected = [...segmenter.segment(text)]
    .filter((s) => s.isWordLike)
    .map((s) => `${s.index}:${s.segment.toLowerCase()}`)
    .join(' ');
  if (
    tokenize(text)
      .map((t) => `${t.start}:${t.term}`)
      .join(' ') !== expected
  )
    mismatched++;
}

function measure(name: string, run: (text: string) => unknown[]): void {
  for (let i = 0; i < 2_000; i++) run(texts[i]!); // warm-up
  const t0 = performance.now();
  let tokens = 0;
  for (const text of texts) tokens += run(text).length;
  const ms = performance.now() - t0;
  console.log(
    JSON.stringify({
      name,
      texts: texts.length,
      tokens,
      ms: Math.round(ms),
      tokensPerSecond: Math.round((tokens / ms) * 1000),
      docsPerSecond: Math.round((texts.length / 2 / ms) * 1000),
    }),
  );
}

console.log(JSON.stringify({ check: 'fast path vs Intl.Segmenter', texts: texts.length, mismatched }));
measure('Intl.Segmenter (word-like, lower-cased)', (text) => [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase()));
measure('tokenize', (text) => tokenize(text));
measure('standard analyzer', (text) => standardAnalyzer.analyze(text));
measure('english analyzer (first pass: every distinct word stemmed once)', (text) => englishAnalyzer.analyze(text));
measure('english analyzer (stems memoised)', (text) => englishAnalyzer.analyze(text));
