import { englishStopWords } from '../analysis/stop-words.js';
import type { QueryToken } from './query-lexer.js';

/**
 * When `and`, `or`, `not`, `but not` and `without` are operators and when they are words.
 *
 * People type two kinds of query. Keyword queries ("cats and dogs", "jaguar without cars",
 * "chicken recipes but not curry") use these words as operators. Whole sentences ("vitamin D is
 * not linked to fewer fractures in older adults", every Cranfield query) use them as grammar, and
 * reading them as operators would turn "is not linked" into "must not contain linked". Sentences
 * are recognised by their function words: a query with two or more of them (outside quotes) is
 * prose, and in prose these words stay words. In a keyword query each form is an operator only
 * where it has something to apply to:
 *
 * - `and`, `or` need a word, phrase or group on both sides ("a and b", not "and b");
 * - `not`, `without` and `but not` need one after them ("not b", "a without b", "a but not b").
 *
 * Upper-case AND, OR and NOT are always operators; the lexer has already made them so.
 */
export type NaturalLanguageMode = 'auto' | 'always' | 'never';

/** The operator words, which Lucene's English stop words include and a sentence test must not count. */
const operatorWords: ReadonlySet<string> = new Set(['and', 'or', 'not', 'but']);

/** Words that mark a sentence: Lucene's English stop words less the operators, plus question words, auxiliaries and pronouns. */
export const functionWords: ReadonlySet<string> = new Set([
  ...[...englishStopWords].filter((w) => !operatorWords.has(w)),
  ...['what', 'which', 'who', 'whom', 'whose', 'why', 'how', 'when', 'where'],
  ...['do', 'does', 'did', 'can', 'could', 'should', 'would', 'may', 'might', 'must', 'has', 'have', 'had', 'were', 'been', 'am'],
  ...['i', 'we', 'you', 'he', 'she', 'me', 'us', 'my', 'our', 'your', 'his', 'her', 'its', 'them', 'those'],
  ...['than', 'from', 'about'],
]);

/** Two or more function words among the query's words (quoted phrases not counted). */
export function isProse(tokens: readonly QueryToken[]): boolean {
  let count = 0;
  for (const t of tokens) {
    if (t.kind === 'word' && functionWords.has(t.text.toLowerCase()) && ++count >= 2) return true;
  }
  return false;
}

function isPlainWord(t: QueryToken | undefined, text: string): boolean {
  return t !== undefined && t.kind === 'word' && t.prefix === undefined && t.field === undefined && t.text.toLowerCase() === text;
}

function startsOperand(t: QueryToken | undefined): boolean {
  return t !== undefined && (t.kind === 'word' || t.kind === 'phrase' || t.kind === 'open');
}

function endsOperand(t: QueryToken | undefined): boolean {
  return t !== undefined && (t.kind === 'word' || t.kind === 'phrase' || t.kind === 'close');
}

/** Turns the natural-language forms that are operators (see above) into operator tokens. */
export function applyNaturalLanguageOperators(tokens: readonly QueryToken[], mode: NaturalLanguageMode = 'auto'): QueryToken[] {
  if (mode === 'never' || (mode === 'auto' && isProse(tokens))) return [...tokens];
  const out: QueryToken[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const before = out[out.length - 1];
    const after = tokens[i + 1];
    if ((isPlainWord(t, 'and') || isPlainWord(t, 'or')) && endsOperand(before) && startsOperand(after)) {
      out.push({ kind: 'op', op: (t as { text: string }).text.toLowerCase() === 'and' ? 'AND' : 'OR' });
    } else if ((isPlainWord(t, 'not') || isPlainWord(t, 'without')) && startsOperand(after)) {
      out.push({ kind: 'op', op: 'NOT' });
    } else if (isPlainWord(t, 'but') && isPlainWord(after, 'not') && startsOperand(tokens[i + 2])) {
      out.push({ kind: 'op', op: 'NOT' });
      i++;
    } else {
      out.push(t);
    }
  }
  return out;
}

/**
 * In prose (see isProse), function words are grammar, not what the user is looking for: the
 * analyzer's `proseStopWords` (the english analyzer's are `functionWords`) are dropped from the
 * query before analysis, as a longer stop list would drop them, but only from sentences (two or more function words), so a
 * keyword query ("who framed roger rabbit") keeps every word. Words with a `+`/`-` prefix or a
 * `field:` qualifier stay, and a query of nothing but such words is left whole. On long
 * natural-language requests this is worth up to 2 points of nDCG@10 (bench/README.md, relevance).
 */
export function dropProseFunctionWords(tokens: QueryToken[], stopWords: ReadonlySet<string> | undefined, mode: NaturalLanguageMode = 'auto'): QueryToken[] {
  if (!stopWords || mode === 'never' || !isProse(tokens)) return tokens;
  const kept = tokens.filter((t) => !(t.kind === 'word' && t.prefix === undefined && t.field === undefined && stopWords.has(t.text.toLowerCase())));
  return kept.some((t) => t.kind === 'word' || t.kind === 'phrase') ? kept : tokens;
}
