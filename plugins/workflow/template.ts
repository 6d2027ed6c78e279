/**
 * Templates: `{{input.<path>}}`, `{{attrs.<name>}}`, `{{steps.<id>.<path>}}` and `{{now}}`.
 * Path lookup only, own properties only; `__proto__`, `constructor` and `prototype` are refused.
 * A string that is exactly one template keeps the value's type; otherwise values are stringified.
 */

export const forbiddenSegments: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const templateRoots = ['input', 'attrs', 'steps', 'now'] as const;
export type TemplateRoot = (typeof templateRoots)[number];

export interface TemplateRef {
  root: TemplateRoot;
  /** Segments after the root (for `steps`, the first one is the step id). */
  path: string[];
  /** The text between the braces, trimmed. */
  raw: string;
}

export class TemplateError extends Error {}

const segmentPattern = /^[A-Za-z0-9_$-]+$/;
const templatePattern = /\{\{\s*([^{}]*?)\s*\}\}/g;
const wholePattern = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/** Parses `input.a.b` into a reference; throws TemplateError with a reason. */
export function parseRef(raw: string): TemplateRef {
  const text = raw.trim();
  if (text === '') throw new TemplateError('empty template');
  const parts = text.split('.');
  for (const p of parts) {
    if (forbiddenSegments.has(p)) throw new TemplateError(`"${p}" is not allowed in a path`);
    if (!segmentPattern.test(p)) throw new TemplateError(`"${text}" is not a path (letters, digits, _ $ - and dots only)`);
  }
  const root = parts[0] as TemplateRoot;
  if (!(templateRoots as readonly string[]).includes(root)) throw new TemplateError(`unknown root "${parts[0]}" (use input, attrs, steps or now)`);
  if (root === 'now' && parts.length > 1) throw new TemplateError('"now" has no fields');
  if (root === 'attrs' && parts.length < 2) throw new TemplateError('"attrs" needs a name: {{attrs.<name>}}');
  if (root === 'steps' && parts.length < 2) throw new TemplateError('"steps" needs a step id: {{steps.<id>}}');
  return { root, path: parts.slice(1), raw: text };
}

/** Every template reference inside a string (parse errors included, as thrown TemplateErrors collected). */
export function refsInString(s: string): Array<TemplateRef | TemplateError> {
  const out: Array<TemplateRef | TemplateError> = [];
  for (const m of s.matchAll(templatePattern)) {
    try {
      out.push(parseRef(m[1]!));
    } catch (err) {
      out.push(err as TemplateError);
    }
  }
  return out;
}

/** Every string inside a JSON value, with its JSON path suffix. */
export function* stringsIn(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [value, path];
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* stringsIn(value[i], `${path}[${i}]`);
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* stringsIn(v, `${path}.${k}`);
}

export interface Scope {
  input: unknown;
  attrs: Record<string, unknown>;
  steps: Record<string, unknown>;
  now: string;
}

/** Own-property path lookup; undefined when any segment is missing. */
export function lookup(value: unknown, path: readonly string[]): unknown {
  let cur = value;
  for (const seg of path) {
    if (forbiddenSegments.has(seg)) throw new TemplateError(`"${seg}" is not allowed in a path`);
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

export function resolveRef(ref: TemplateRef, scope: Scope): unknown {
  switch (ref.root) {
    case 'now':
      return scope.now;
    case 'input':
      return lookup(scope.input, ref.path);
    case 'attrs':
      return lookup(scope.attrs, ref.path);
    case 'steps':
      return lookup(scope.steps, ref.path);
  }
}

const parsedCache = new Map<string, TemplateRef>();
function cachedRef(raw: string): TemplateRef {
  let ref = parsedCache.get(raw);
  if (ref === undefined) {
    ref = parseRef(raw);
    if (parsedCache.size < 10_000) parsedCache.set(raw, ref);
  }
  return ref;
}

function stringify(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Resolves the templates in a string. A string that is exactly one template keeps the value's type. */
export function renderString(s: string, scope: Scope): unknown {
  if (!s.includes('{{')) return s;
  const whole = wholePattern.exec(s);
  if (whole) return resolveRef(cachedRef(whole[1]!), scope);
  return s.replace(templatePattern, (_m, raw: string) => stringify(resolveRef(cachedRef(raw), scope)));
}

/** Resolves every template in a JSON value (objects and arrays recursively). */
export function render(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return renderString(value, scope);
  if (Array.isArray(value)) return value.map((v) => render(v, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = render(v, scope);
      if (r !== undefined) out[k] = r;
    }
    return out;
  }
  return value;
}
