import { InputError } from 'tessera-runtime/plugin';
import { stemEnglish, stemOnce, stripPossessive } from './english-stemmer.js';
import { functionWords } from '../query/natural-language-operators.js';
import { englishStopWords } from './stop-words.js';
import type { TermPositions } from './term-ids.js';
import { tokenize, type Token } from './tokenizer.js';
import { WordTable } from './word-table.js';

/**
 * An analyzer turns a field value (or a query's leaf text) into terms. Index and query must use
 * the same one for a field, so that stop words and stems line up.
 */
export interface Analyzer {
  readonly name: string;
  /**
   * The value's terms in order. `position` counts the value's words, so a dropped word (a stop
   * word) leaves a gap and phrases stay exact; `start`/`end` locate the word in `text`.
   */
  analyze(text: string): Token[];
  /**
   * The indexing path: appends the id (term-ids.ts) and position of each term `analyze` gives, in
   * the same order, without making tokens. Optional; the segment builder interns `analyze`'s terms
   * for an analyzer without it.
   */
  analyzeIds?(text: string, out: TermPositions): void;
  /**
   * Words a query written as a sentence drops before analysis (natural-language-operators.ts):
   * the english analyzer's are the function words that mark prose. @default none
   */
  readonly proseStopWords?: ReadonlySet<string>;
}

export function defineAnalyzer(analyzer: Analyzer): Analyzer {
  return analyzer;
}

const standardWords = new WordTable((word) => word);

/** Unicode word segmentation, lower-casing and diacritic folding. */
export const standardAnalyzer = defineAnalyzer({
  name: 'standard',
  analyze: (text) => tokenize(text),
  analyzeIds: (text, out) => standardWords.collect(text, out),
});

/** The english analyzer's term for one tokenized word, or null for a stop word. */
function englishTerm(word: string): string | null {
  const stripped = stripPossessive(word);
  return englishStopWords.has(stripped) ? null : stemOnce(stripped);
}
const englishWords = new WordTable(englishTerm);

/** `standard`, then possessives, Lucene's English stop words and the Porter2 stemmer. */
export const englishAnalyzer = defineAnalyzer({
  name: 'english',
  proseStopWords: functionWords,
  analyze(text) {
    const terms: Token[] = [];
    for (const token of tokenize(text)) {
      const word = stripPossessive(token.term);
      if (englishStopWords.has(word)) continue;
      token.term = stemEnglish(word);
      terms.push(token);
    }
    return terms;
  },
  analyzeIds: (text, out) => englishWords.collect(text, out),
});

/** The whole value as one exact term: no splitting, no case or accent folding. */
export const keywordAnalyzer = defineAnalyzer({
  name: 'keyword',
  analyze: (text) => (text === '' ? [] : [{ term: text, position: 0, start: 0, end: text.length }]),
});

const builtins = { standard: standardAnalyzer, english: englishAnalyzer, keyword: keywordAnalyzer } as const;

export type AnalyzerName = keyof typeof builtins;

export const analyzerNames = Object.keys(builtins) as AnalyzerName[];

export class UnknownAnalyzerError extends InputError {
  constructor(name: string) {
    super('unknown_analyzer', `Unknown analyzer "${name}"; expected one of: ${analyzerNames.join(', ')}`, {
      details: { analyzer: name, expected: analyzerNames },
    });
    this.name = 'UnknownAnalyzerError';
  }
}

export function isAnalyzerName(name: string): name is AnalyzerName {
  return Object.hasOwn(builtins, name);
}

/** The built-in analyzer called `name`; throws `unknown_analyzer` (400) for any other name. */
export function getAnalyzer(name: string): Analyzer {
  if (!isAnalyzerName(name)) throw new UnknownAnalyzerError(name);
  return builtins[name];
}
