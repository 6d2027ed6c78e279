/**
 * Splits a `q` string into the tokens of the query language. It never fails: a quote without its
 * partner is dropped and the words after it are read as ordinary words; a `+` or `-` with nothing
 * after it is dropped. Which words are operators in the natural-language sense is decided later
 * (natural-language-operators.ts); only upper-case AND, OR and NOT are operators here.
 */
export type Occur = '+' | '-';

export type QueryToken =
  | { kind: 'word'; text: string; prefix?: Occur; field?: string }
  | { kind: 'phrase'; text: string; prefix?: Occur; field?: string }
  | { kind: 'open'; prefix?: Occur; field?: string }
  | { kind: 'close' }
  | { kind: 'op'; op: 'AND' | 'OR' | 'NOT' };

export interface LexQueryOptions {
  /** Names a `field:` qualifier may use; any other `name:` is ordinary text ("ratio:2"). */
  fields?: ReadonlySet<string>;
}

const fieldQualifier = /^([\p{L}\p{N}_][\p{L}\p{N}_.-]*):/u;

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v' || ch === '\u00a0' || ch === '\u3000';
}

function endsWord(ch: string): boolean {
  return isSpace(ch) || ch === '(' || ch === ')' || ch === '"';
}

/** True when the query has upper-case letters and no lower-case ones ("CATS AND DOGS"). */
function isAllCaps(q: string): boolean {
  return /\p{Lu}/u.test(q) && !/\p{Ll}/u.test(q);
}

export function lexQuery(q: string, options: LexQueryOptions = {}): QueryToken[] {
  const fields = options.fields;
  // A query typed entirely in capitals says nothing by its capitals: its AND/OR/NOT are read like
  // the lower-case forms, under the natural-language rule.
  const strictOperators = !isAllCaps(q);
  const tokens: QueryToken[] = [];
  const n = q.length;
  let i = 0;
  while (i < n) {
    const ch = q[i]!;
    if (isSpace(ch)) {
      i++;
      continue;
    }
    if (ch === ')') {
      tokens.push({ kind: 'close' });
      i++;
      continue;
    }
    let prefix: Occur | undefined;
    while (i < n && (q[i] === '+' || q[i] === '-')) {
      // "-5" is a negative number, not a prohibited "5".
      if (q[i] === '-' && /[0-9]/.test(q[i + 1] ?? '')) break;
      prefix = q[i] as Occur;
      i++;
    }
    let field: string | undefined;
    const qualifier = fieldQualifier.exec(q.slice(i, i + 256));
    if (qualifier && fields?.has(qualifier[1]!) && i + qualifier[0].length < n && !isSpace(q[i + qualifier[0].length]!)) {
      field = qualifier[1]!;
      i += qualifier[0].length;
    }
    const at = q[i];
    if (at === undefined || isSpace(at) || at === ')') continue;
    if (at === '(') {
      tokens.push(withQualifiers({ kind: 'open' }, prefix, field));
      i++;
      continue;
    }
    if (at === '"') {
      const close = q.indexOf('"', i + 1);
      if (close === -1) {
        i++;
        continue;
      }
      tokens.push(withQualifiers({ kind: 'phrase', text: q.slice(i + 1, close) }, prefix, field));
      i = close + 1;
      continue;
    }
    let end = i;
    while (end < n && !endsWord(q[end]!)) end++;
    const text = q.slice(i, end);
    i = end;
    if (strictOperators && prefix === undefined && field === undefined && (text === 'AND' || text === 'OR' || text === 'NOT')) {
      tokens.push({ kind: 'op', op: text });
    } else {
      tokens.push(withQualifiers({ kind: 'word', text }, prefix, field));
    }
  }
  return tokens;
}

function withQualifiers(token: Exclude<QueryToken, { kind: 'close' | 'op' }>, prefix: Occur | undefined, field: string | undefined): QueryToken {
  if (prefix !== undefined) token.prefix = prefix;
  if (field !== undefined) token.field = field;
  return token;
}
