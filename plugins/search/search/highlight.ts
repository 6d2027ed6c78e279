import { analyzedPart } from '../analysis/text-limits.js';
import { getAnalyzer, type Analyzer } from '../analysis/analyzer.js';
import { fieldValues } from '../index/field-path.js';
import { tokenize } from '../analysis/tokenizer.js';

/**
 * Highlight fragments: bounded windows of a field's text around the query's terms.
 *
 * 1. The text is analysed with the field's analyzer; tokens whose term is a query term are matches.
 * 2. Matches are grouped left to right while a group spans at most `fragmentSize` characters.
 * 3. Each group is widened evenly to `fragmentSize` (clipped to the text), then narrowed so it neither
 *    starts nor ends inside a word, and trimmed of white space around it and of closing punctuation
    at its start.
 * 4. `numberOfFragments` groups are picked by distinct matched terms (preferring terms not yet
 *    shown), then matches, then position, and returned in text order, none overlapping another.
 * Text outside the tags is HTML-escaped, so a fragment is safe to insert as HTML: its visible
 * length is at most `fragmentSize` characters (before escaping) plus the tags.
 */

export interface HighlightOptions {
  /** @default 100 */
  fragmentSize?: number;
  /** @default 3 */
  numberOfFragments?: number;
  /** @default '<mark>' */
  preTag?: string;
  /** @default '</mark>' */
  postTag?: string;
}

interface Span {
  start: number;
  end: number;
}

interface Fragment extends Span {
  html: string;
  terms: Set<string>;
  matches: number;
}

/**
 * The best `count` candidates, greedily: each pick maximises the terms it adds to those already
 * picked, then its distinct terms, then its matches, then comes first. So three fragments about
 * "fox" do not crowd out the only one about "valley".
 */
function selectBest<T extends { terms: Set<string>; matches: number }>(candidates: T[], count: number): T[] {
  const left = [...candidates];
  const picked: T[] = [];
  const covered = new Set<string>();
  while (picked.length < count && left.length > 0) {
    let best = 0;
    let bestKey: number[] = [];
    left.forEach((c, i) => {
      let fresh = 0;
      for (const t of c.terms) if (!covered.has(t)) fresh++;
      const key = [fresh, c.terms.size, c.matches];
      const better = key.findIndex((v, k) => v !== bestKey[k]);
      if (i === 0 || (better !== -1 && key[better]! > bestKey[better]!)) [best, bestKey] = [i, key];
    });
    const [chosen] = left.splice(best, 1);
    for (const t of chosen!.terms) covered.add(t);
    picked.push(chosen!);
  }
  return picked;
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => escapes[c]!);
}

/** The word containing `offset` strictly inside it, if any (words sorted by start). */
function wordAround(words: Span[], offset: number): Span | undefined {
  let lo = 0;
  let hi = words.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const w = words[mid]!;
    if (w.end <= offset) lo = mid + 1;
    else if (w.start >= offset) hi = mid - 1;
    else return w;
  }
  return undefined;
}

function render(text: string, window: Span, matches: Span[], pre: string, post: string): string {
  let html = '';
  let at = window.start;
  for (const m of matches) {
    const start = Math.max(m.start, at);
    const end = Math.min(m.end, window.end);
    if (end <= start) continue;
    html += escapeHtml(text.slice(at, start)) + pre + escapeHtml(text.slice(start, end)) + post;
    at = end;
  }
  return html + escapeHtml(text.slice(at, window.end));
}

function fragmentsOf(whole: string, analyzer: Analyzer, terms: ReadonlySet<string>, options: HighlightOptions): Fragment[] {
  // Only the analysed part of a value can hold matches (see text-limits.ts).
  const text = analyzedPart(whole);
  const size = Math.max(1, Math.floor(options.fragmentSize ?? 100));
  const matches = analyzer.analyze(text).filter((t) => terms.has(t.term));
  if (matches.length === 0) return [];
  const groups: Array<typeof matches> = [];
  for (const m of matches) {
    const group = groups.at(-1);
    if (group && m.end - group[0]!.start <= size) group.push(m);
    else groups.push([m]);
  }
  const words: Span[] = tokenize(text);
  const candidates = groups.map((group) => {
    const first = group[0]!;
    const last = group.at(-1)!;
    const slack = Math.max(0, size - (last.end - first.start));
    let start = Math.max(0, first.start - Math.floor(slack / 2));
    const end = Math.min(text.length, start + Math.max(size, last.end - first.start));
    start = Math.max(0, Math.min(start, end - size));
    return { group, start, end, terms: new Set(group.map((t) => t.term)), matches: group.length };
  });
  const ranked = selectBest(candidates, Math.max(1, Math.floor(options.numberOfFragments ?? 3))).sort((a, b) => a.start - b.start);

  const out: Fragment[] = [];
  const pre = options.preTag ?? '<mark>';
  const post = options.postTag ?? '</mark>';
  let previousEnd = 0;
  ranked.forEach((r, k) => {
    const first = r.group[0]!.start;
    const last = r.group.at(-1)!.end;
    const nextFirst = ranked[k + 1]?.group[0]!.start ?? text.length;
    let start = Math.max(r.start, previousEnd);
    let end = Math.min(r.end, nextFirst, start + size);
    const cutStart = wordAround(words, start);
    if (cutStart) start = Math.min(cutStart.end, first);
    const cutEnd = wordAround(words, end);
    if (cutEnd) end = Math.max(cutEnd.start, Math.min(last, end));
    while (start < first && /[\s,.;:!?)\]}]/.test(text[start]!)) start++;
    while (end > last && /\s/.test(text[end - 1]!)) end--;
    const inside = matches.filter((m) => m.end > start && m.start < end);
    out.push({ start, end, terms: r.terms, matches: r.matches, html: render(text, { start, end }, inside, pre, post) });
    previousEnd = end;
  });
  return out;
}

/** Up to `numberOfFragments` highlighted fragments of `text`, in text order; [] when no term matches. */
export function highlight(text: string, analyzer: Analyzer | string, terms: ReadonlySet<string>, options: HighlightOptions = {}): string[] {
  if (terms.size === 0 || text === '') return [];
  return fragmentsOf(text, typeof analyzer === 'string' ? getAnalyzer(analyzer) : analyzer, terms, options).map((f) => f.html);
}

export interface HighlightField {
  field: string;
  analyzer: Analyzer | string;
  /** Terms for this field when they differ from the shared set (another analyzer's stems). */
  terms?: ReadonlySet<string>;
}

/**
 * Highlights each field's string values in a source (dotted paths, arrays included). A field with
 * several values gets the best `numberOfFragments` fragments over all of them, in value order.
 * Only fields with at least one fragment appear.
 */
export function highlightDocument(
  source: Record<string, unknown>,
  fields: readonly HighlightField[],
  terms: ReadonlySet<string>,
  options: HighlightOptions = {},
): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  const count = Math.max(1, Math.floor(options.numberOfFragments ?? 3));
  for (const { field, analyzer, terms: own } of fields) {
    const fieldTerms = own ?? terms;
    if (fieldTerms.size === 0) continue;
    const resolved = typeof analyzer === 'string' ? getAnalyzer(analyzer) : analyzer;
    const texts = fieldValues(source, field).filter((v): v is string => typeof v === 'string' && v !== '');
    const fragments = texts.flatMap((text, value) => fragmentsOf(text, resolved, fieldTerms, options).map((f) => ({ ...f, value })));
    if (fragments.length === 0) continue;
    result[field] = selectBest(fragments, count)
      .sort((a, b) => a.value - b.value || a.start - b.start)
      .map((f) => f.html);
  }
  return result;
}
