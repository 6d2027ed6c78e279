import type { Analyzer } from '../analysis/analyzer.js';
import { matchAll, matchNone, type BooleanQuery, type QueryNode } from './query-ast.js';
import { lexQuery, type QueryToken } from './query-lexer.js';
import { parseMinimumShouldMatch, resolveMinimumShouldMatch } from './minimum-should-match.js';
import { applyNaturalLanguageOperators, dropProseFunctionWords, type NaturalLanguageMode } from './natural-language-operators.js';

export interface ParseQueryOptions {
  /** Analyses leaves without a `field:` qualifier: the analyzer of the fields being searched. */
  analyzer: Analyzer;
  /** Fields a `field:` qualifier may name, each with its analyzer. Other `name:` text is ordinary text. */
  fields?: Readonly<Record<string, Analyzer>>;
  /** How juxtaposed clauses combine (`a b`): the request's `operator`, else the index's `defaultOperator`. @default 'OR' */
  defaultOperator?: 'AND' | 'OR';
  /** How many of the top-level optional clauses must match; see minimum-should-match.ts. Throws `invalid_minimum_should_match`. */
  minimumShouldMatch?: string | number;
  /** Whether lower-case `and`, `or`, `not`, `but not`, `without` may be operators; see natural-language-operators.ts. @default 'auto' */
  naturalLanguage?: NaturalLanguageMode;
}

/** Deeper parentheses are read as if absent, so no query can exhaust the stack. */
const MAX_DEPTH = 32;

type Occur = 'default' | 'must' | 'mustNot';
type Syntax =
  { kind: 'word' | 'phrase'; text: string; field?: string } | { kind: 'group'; items: Element[]; field?: string } | { kind: 'and' | 'or'; operands: Element[] };
interface Element {
  occur: Occur;
  syntax: Syntax;
}

/**
 * Parses `q` into a query tree. Precedence, tightest first: `+`/`-`/NOT, AND, OR, then
 * juxtaposition (combined with `defaultOperator`). Only a bad `minimumShouldMatch` throws: any
 * `q` parses, with stray operators, parentheses and quotes read as described in docs/search-query.md.
 */
export function parseQuery(q: string, options: ParseQueryOptions): QueryNode {
  const msm = options.minimumShouldMatch === undefined ? undefined : parseMinimumShouldMatch(options.minimumShouldMatch);
  if (q.trim() === '') return matchAll;
  const fields = options.fields ?? {};
  const lexed = lexQuery(q, { fields: new Set(Object.keys(fields)) });
  const natural = options.naturalLanguage ?? 'auto';
  const tokens = limitDepth(dropProseFunctionWords(applyNaturalLanguageOperators(lexed, natural), options.analyzer.proseStopWords, natural));
  const items = new TokenParser(tokens).parseAll();
  const builder = new TreeBuilder(options.analyzer, fields, options.defaultOperator ?? 'OR');
  const root = builder.combine(items, builder.defaultOperator, undefined);
  if (root === null) return matchNone;
  if (msm && root.type === 'bool' && root.should.length > 0) root.minimumShouldMatch = resolveMinimumShouldMatch(msm, root.should.length);
  return root;
}

/** Drops the parentheses nested deeper than MAX_DEPTH, and closing ones with no opening partner. */
function limitDepth(tokens: QueryToken[]): QueryToken[] {
  const out: QueryToken[] = [];
  let depth = 0;
  let dropped = 0;
  for (const t of tokens) {
    if (t.kind === 'open') {
      if (depth >= MAX_DEPTH) {
        dropped++;
        continue;
      }
      depth++;
    } else if (t.kind === 'close') {
      if (dropped > 0) {
        dropped--;
        continue;
      }
      if (depth === 0) continue;
      depth--;
    }
    out.push(t);
  }
  return out;
}

class TokenParser {
  private i = 0;
  constructor(private readonly tokens: QueryToken[]) {}

  parseAll(): Element[] {
    return this.parseSequence();
  }

  /** Juxtaposed clauses up to the closing parenthesis (consumed) or the end; an unclosed group closes at the end. */
  private parseSequence(): Element[] {
    const items: Element[] = [];
    for (;;) {
      const t = this.tokens[this.i];
      if (t === undefined) return items;
      if (t.kind === 'close') {
        this.i++;
        return items;
      }
      if (t.kind === 'op' && t.op !== 'NOT') {
        this.i++; // AND/OR with nothing on its left
        continue;
      }
      const item = this.parseOr();
      if (item) items.push(item);
    }
  }

  private parseOr(): Element | null {
    return this.parseChain('OR', 'or', () => this.parseAnd());
  }

  private parseAnd(): Element | null {
    return this.parseChain('AND', 'and', () => this.parseUnary());
  }

  private parseChain(op: 'AND' | 'OR', kind: 'and' | 'or', operand: () => Element | null): Element | null {
    const first = operand();
    if (!first) return null;
    const operands = [first];
    for (;;) {
      const t = this.tokens[this.i];
      if (t?.kind !== 'op' || t.op !== op) break;
      this.i++;
      const next = operand();
      if (!next) break; // a dangling AND/OR is dropped
      operands.push(next);
    }
    return operands.length === 1 ? first : { occur: 'default', syntax: { kind, operands } };
  }

  private parseUnary(): Element | null {
    let negations = 0;
    for (let t = this.tokens[this.i]; t?.kind === 'op' && t.op === 'NOT'; t = this.tokens[this.i]) {
      negations++;
      this.i++;
    }
    const primary = this.parsePrimary();
    if (!primary || negations % 2 === 0) return primary;
    return { occur: primary.occur === 'mustNot' ? 'default' : 'mustNot', syntax: primary.syntax };
  }

  private parsePrimary(): Element | null {
    const t = this.tokens[this.i];
    if (t === undefined || t.kind === 'close' || t.kind === 'op') return null;
    this.i++;
    const occur: Occur = t.prefix === '+' ? 'must' : t.prefix === '-' ? 'mustNot' : 'default';
    if (t.kind === 'open') return { occur, syntax: { kind: 'group', items: this.parseSequence(), field: t.field } };
    return { occur, syntax: { kind: t.kind, text: t.text, field: t.field } };
  }
}

class TreeBuilder {
  constructor(
    private readonly analyzer: Analyzer,
    private readonly fields: Readonly<Record<string, Analyzer>>,
    readonly defaultOperator: 'AND' | 'OR',
  ) {}

  /** `explicitOr`: the elements are the operands of OR, not clauses juxtaposed under the default operator. */
  combine(elements: Element[], operator: 'AND' | 'OR', field: string | undefined, explicitOr = false): QueryNode | null {
    const must: QueryNode[] = [];
    const should: QueryNode[] = [];
    const mustNot: QueryNode[] = [];
    for (const element of elements) {
      const node = this.build(element.syntax, field);
      if (node === null) continue;
      if (element.occur === 'must') must.push(node);
      else if (element.occur === 'mustNot') {
        // "a OR NOT b" is a disjunction with "everything but b", not Lucene's "a -b".
        if (explicitOr) should.push(makeBool([], [], [node])!);
        else mustNot.push(node);
      } else if (operator === 'AND') must.push(node);
      else should.push(node);
    }
    return makeBool(must, should, mustNot);
  }

  private build(syntax: Syntax, field: string | undefined): QueryNode | null {
    switch (syntax.kind) {
      case 'group':
        return this.combine(syntax.items, this.defaultOperator, syntax.field ?? field);
      case 'and':
        return this.combine(syntax.operands, 'AND', field);
      case 'or':
        return this.combine(syntax.operands, 'OR', field, true);
      default:
        return this.leaf(syntax.kind, syntax.text, syntax.field ?? field);
    }
  }

  private leaf(kind: 'word' | 'phrase', text: string, field: string | undefined): QueryNode | null {
    const analyzer = (field !== undefined ? this.fields[field] : undefined) ?? this.analyzer;
    const tokens = analyzer.analyze(text);
    const withField = <T extends QueryNode>(node: T): T => (field === undefined ? node : { ...node, field });
    if (tokens.length === 0) return null;
    if (tokens.length === 1) return withField({ type: 'term', term: tokens[0]!.term });
    if (kind === 'phrase') {
      const first = tokens[0]!.position;
      return withField({ type: 'phrase', terms: tokens.map((t) => t.term), positions: tokens.map((t) => t.position - first) });
    }
    // One word the analyzer splits ("three-point", "e-mail", CJK text without spaces) is a group of
    // its terms, as in Lucene (autoGeneratePhraseQueries off): reading it as a phrase cost 0.007
    // nDCG@10 on Cranfield, and adding the phrase as an extra optional clause cost 0.012.
    const terms: QueryNode[] = tokens.map((t) => withField({ type: 'term', term: t.term }));
    return this.defaultOperator === 'AND' ? makeBool(terms, [], []) : makeBool([], terms, []);
  }
}

/**
 * A boolean node, simplified: nested pure conjunctions merge into `must`, a single positive clause
 * stands alone, a purely negative node gets a match-all `must`, and an empty one is null.
 */
function makeBool(must: QueryNode[], should: QueryNode[], mustNot: QueryNode[]): QueryNode | null {
  const flatMust: QueryNode[] = [];
  const flatMustNot = [...mustNot];
  for (const node of must) {
    if (node.type === 'bool' && node.should.length === 0) {
      flatMust.push(...node.must.filter((m) => m.type !== 'all'));
      flatMustNot.push(...node.mustNot);
    } else if (node.type !== 'all') {
      flatMust.push(node);
    }
  }
  if (flatMust.length + should.length + flatMustNot.length === 0) return null;
  if (flatMustNot.length === 0 && flatMust.length + should.length === 1) return flatMust[0] ?? should[0]!;
  const bool: BooleanQuery = { type: 'bool', must: flatMust, should, mustNot: flatMustNot, minimumShouldMatch: 0 };
  if (flatMust.length === 0 && should.length === 0) bool.must.push(matchAll);
  return bool;
}
