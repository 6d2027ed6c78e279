/**
 * The condition language: a small expression grammar parsed into an AST and evaluated by an
 * allow-list interpreter. Nothing is ever handed to eval or Function.
 *
 *   expr    := or
 *   or      := and ('||' and)*
 *   and     := not ('&&' not)*
 *   not     := '!' not | cmp
 *   cmp     := operand (('=='|'!='|'<'|'<='|'>'|'>='|'in') operand)?
 *   operand := template | number | string | true | false | null | '[' (operand (',' operand)*)? ']' | '(' expr ')'
 *
 * Templates (`{{input.amount}}`) are the only way to read data; bare identifiers are errors.
 */
import { parseRef, resolveRef, type Scope, type TemplateRef } from './template.js';

export type Expr =
  | { type: 'literal'; value: string | number | boolean | null }
  | { type: 'ref'; ref: TemplateRef }
  | { type: 'array'; items: Expr[] }
  | { type: 'not'; arg: Expr }
  | { type: 'logical'; op: '&&' | '||'; left: Expr; right: Expr }
  | { type: 'compare'; op: CompareOp; left: Expr; right: Expr };

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in';

export class ExprError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

type Token =
  | { t: 'num'; v: number; at: number }
  | { t: 'str'; v: string; at: number }
  | { t: 'ref'; v: TemplateRef; at: number }
  | { t: 'word'; v: string; at: number }
  | { t: 'op'; v: string; at: number }
  | { t: 'end'; at: number };

const maxLength = 2000;
const maxDepth = 32;

function tokenize(src: string): Token[] {
  if (src.length > maxLength) throw new ExprError(`condition longer than ${maxLength} characters`, maxLength);
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (src.startsWith('{{', i)) {
      const end = src.indexOf('}}', i + 2);
      if (end < 0) throw new ExprError('unclosed template "{{"', i);
      try {
        out.push({ t: 'ref', v: parseRef(src.slice(i + 2, end)), at: i });
      } catch (err) {
        throw new ExprError((err as Error).message, i);
      }
      i = end + 2;
      continue;
    }
    const num = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if (num && (c !== '-' || out.length === 0 || out[out.length - 1]!.t === 'op')) {
      out.push({ t: 'num', v: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\' && j + 1 < src.length) {
          const e = src[j + 1]!;
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else s += src[j++];
      }
      if (j >= src.length) throw new ExprError('unterminated string', i);
      out.push({ t: 'str', v: s, at: i });
      i = j + 1;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '<=', '>=', '&&', '||'].includes(two)) {
      // `===` and `!==` read as `==` and `!=`: equality here is always strict.
      const three = src.slice(i, i + 3);
      if (three === '===' || three === '!==') {
        out.push({ t: 'op', v: two, at: i });
        i += 3;
      } else {
        out.push({ t: 'op', v: two, at: i });
        i += 2;
      }
      continue;
    }
    if ('<>!()[],'.includes(c)) {
      out.push({ t: 'op', v: c, at: i });
      i++;
      continue;
    }
    const word = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i));
    if (word) {
      out.push({ t: 'word', v: word[0], at: i });
      i += word[0].length;
      continue;
    }
    throw new ExprError(`unexpected character "${c}"`, i);
  }
  out.push({ t: 'end', at: src.length });
  return out;
}

/** Parses a condition; throws ExprError with the offset of the problem. */
export function parseExpr(src: string): Expr {
  const tokens = tokenize(src);
  let pos = 0;
  let depth = 0;
  const peek = (): Token => tokens[pos]!;
  const isOp = (v: string): boolean => {
    const t = peek();
    return t.t === 'op' && t.v === v;
  };
  const expect = (v: string): void => {
    if (!isOp(v)) throw new ExprError(`expected "${v}"`, peek().at);
    pos++;
  };
  const enter = (): void => {
    if (++depth > maxDepth) throw new ExprError(`nested deeper than ${maxDepth}`, peek().at);
  };

  function or(): Expr {
    let left = and();
    while (isOp('||')) {
      pos++;
      left = { type: 'logical', op: '||', left, right: and() };
    }
    return left;
  }
  function and(): Expr {
    let left = not();
    while (isOp('&&')) {
      pos++;
      left = { type: 'logical', op: '&&', left, right: not() };
    }
    return left;
  }
  function not(): Expr {
    if (isOp('!')) {
      pos++;
      enter();
      const arg = not();
      depth--;
      return { type: 'not', arg };
    }
    return cmp();
  }
  function cmp(): Expr {
    const left = operand();
    const t = peek();
    if (t.t === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(t.v)) {
      pos++;
      return { type: 'compare', op: t.v as CompareOp, left, right: operand() };
    }
    if (t.t === 'word' && t.v === 'in') {
      pos++;
      return { type: 'compare', op: 'in', left, right: operand() };
    }
    return left;
  }
  function operand(): Expr {
    const t = peek();
    switch (t.t) {
      case 'num':
        pos++;
        return { type: 'literal', value: t.v };
      case 'str':
        pos++;
        return { type: 'literal', value: t.v };
      case 'ref':
        pos++;
        return { type: 'ref', ref: t.v };
      case 'word':
        pos++;
        if (t.v === 'true') return { type: 'literal', value: true };
        if (t.v === 'false') return { type: 'literal', value: false };
        if (t.v === 'null') return { type: 'literal', value: null };
        throw new ExprError(`unknown name "${t.v}": read data through a template such as {{input.${t.v}}}`, t.at);
      case 'op':
        if (t.v === '(') {
          pos++;
          enter();
          const e = or();
          depth--;
          expect(')');
          return e;
        }
        if (t.v === '[') {
          pos++;
          const items: Expr[] = [];
          if (!isOp(']')) {
            items.push(operand());
            while (isOp(',')) {
              pos++;
              items.push(operand());
            }
          }
          expect(']');
          return { type: 'array', items };
        }
        throw new ExprError(`unexpected "${t.v}"`, t.at);
      case 'end':
        throw new ExprError('unexpected end of condition', t.at);
    }
  }

  const e = or();
  if (peek().t !== 'end') throw new ExprError('unexpected input after the condition', peek().at);
  return e;
}

/** Every template reference in an expression. */
export function exprRefs(e: Expr, out: TemplateRef[] = []): TemplateRef[] {
  switch (e.type) {
    case 'ref':
      out.push(e.ref);
      break;
    case 'array':
      for (const i of e.items) exprRefs(i, out);
      break;
    case 'not':
      exprRefs(e.arg, out);
      break;
    case 'logical':
    case 'compare':
      exprRefs(e.left, out);
      exprRefs(e.right, out);
      break;
  }
  return out;
}

function truthy(v: unknown): boolean {
  return !(v === undefined || v === null || v === false || v === 0 || v === '' || Number.isNaN(v));
}

function equal(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

function evaluate(e: Expr, scope: Scope): unknown {
  switch (e.type) {
    case 'literal':
      return e.value;
    case 'ref':
      return resolveRef(e.ref, scope);
    case 'array':
      return e.items.map((i) => evaluate(i, scope));
    case 'not':
      return !truthy(evaluate(e.arg, scope));
    case 'logical': {
      const l = truthy(evaluate(e.left, scope));
      if (e.op === '&&') return l && truthy(evaluate(e.right, scope));
      return l || truthy(evaluate(e.right, scope));
    }
    case 'compare': {
      const l = evaluate(e.left, scope);
      const r = evaluate(e.right, scope);
      switch (e.op) {
        case '==':
          return equal(l, r);
        case '!=':
          return !equal(l, r);
        case 'in':
          if (Array.isArray(r)) return r.some((x) => equal(x, l));
          if (typeof r === 'string') return typeof l === 'string' && r.includes(l);
          if (r !== null && typeof r === 'object') return typeof l === 'string' && Object.prototype.hasOwnProperty.call(r, l);
          return false;
        default: {
          // Ordering compares two numbers or two strings; anything else is false.
          const bothNumbers = typeof l === 'number' && typeof r === 'number';
          const bothStrings = typeof l === 'string' && typeof r === 'string';
          if (!bothNumbers && !bothStrings) return false;
          const a = l as number | string;
          const b = r as number | string;
          return e.op === '<' ? a < b : e.op === '<=' ? a <= b : e.op === '>' ? a > b : a >= b;
        }
      }
    }
  }
}

/** Evaluates a parsed condition to a boolean. */
export function test(e: Expr, scope: Scope): boolean {
  return truthy(evaluate(e, scope));
}

const cache = new Map<string, Expr>();
/** Parses (with a bounded cache) and evaluates. */
export function evalCondition(src: string, scope: Scope): boolean {
  let e = cache.get(src);
  if (e === undefined) {
    e = parseExpr(src);
    if (cache.size < 10_000) cache.set(src, e);
  }
  return test(e, scope);
}
