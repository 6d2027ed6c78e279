import { add, andInPlace, andNotInPlace, emptySet, fullSet, orInPlace, type Bitset } from '../index/bitset.js';
import { parseDate, isPlainObject, type PreparedFields } from '../index/document-validation.js';
import type { FieldMapping } from '../index/mappings.js';
import { InvalidFilterError } from '../search-errors.js';

/**
 * The filter language: a JSON tree that restricts which documents a search or delete sees.
 *
 *   {"eq": {"status": "published"}}            {"in": {"tag": ["a", "b"]}}
 *   {"range": {"price": {"gte": 10, "lt": 20}}}  {"range": {"at": {"gte": "2024-01-01"}}}
 *   {"exists": "author"}  or  {"exists": {"field": "author"}}
 *   {"and": [f, ...]}  {"or": [f, ...]}  {"not": f}
 *
 * Leaves name keyword, number, boolean or date fields (indexed), or `id`; `range` takes number and
 * date fields, with dates as ISO 8601 strings or epoch ms. Each leaf object names exactly one field
 * (combine several with `and`). `and`/`or` take a non-empty array. An `in` list may be empty (it
 * matches nothing). A multi-valued field matches when any of its values does, and `not` is the
 * complement of that: `not eq tag "a"` keeps documents with no value "a", including those with none.
 */

export type FilterFieldType = 'keyword' | 'number' | 'boolean' | 'date' | 'id';
export type FilterValue = string | number | boolean;

export type FilterNode =
  | { op: 'eq'; field: string; type: FilterFieldType; value: FilterValue }
  | { op: 'in'; field: string; type: FilterFieldType; values: FilterValue[] }
  | { op: 'range'; field: string; type: 'number' | 'date'; gt?: number; gte?: number; lt?: number; lte?: number }
  | { op: 'exists'; field: string; type: FilterFieldType }
  | { op: 'and'; filters: FilterNode[] }
  | { op: 'or'; filters: FilterNode[] }
  | { op: 'not'; filter: FilterNode };

export const maxFilterDepth = 32;
export const maxInValues = 10_000;
const rangeBounds = ['gt', 'gte', 'lt', 'lte'] as const;

function fieldType(field: string, mappings: Record<string, FieldMapping>, path: string): FilterFieldType {
  if (field === 'id') return 'id';
  const mapping = Object.hasOwn(mappings, field) ? mappings[field] : undefined;
  if (!mapping) throw new InvalidFilterError(path, `unknown field "${field}"`);
  if (mapping.type === 'text' || mapping.type === 'geo_point') {
    throw new InvalidFilterError(path, `field "${field}" is ${mapping.type}; filters apply to keyword, number, boolean and date fields`);
  }
  if (!mapping.index) throw new InvalidFilterError(path, `field "${field}" is not indexed (index: false)`);
  return mapping.type;
}

function value(type: FilterFieldType, raw: unknown, path: string): FilterValue {
  let v: FilterValue | undefined;
  if (type === 'keyword')
    v = typeof raw === 'string' || typeof raw === 'boolean' || (typeof raw === 'number' && Number.isFinite(raw)) ? String(raw) : undefined;
  else if (type === 'id') v = typeof raw === 'string' || (typeof raw === 'number' && Number.isFinite(raw)) ? String(raw) : undefined;
  else if (type === 'number') v = typeof raw === 'number' && Number.isFinite(raw) ? raw : undefined;
  else if (type === 'date') v = parseDate(raw);
  else v = typeof raw === 'boolean' ? raw : undefined;
  if (v === undefined) {
    const expected = {
      keyword: 'a string, number or boolean',
      id: 'a string or number',
      number: 'a finite number',
      date: 'an ISO 8601 date or epoch milliseconds',
      boolean: 'a boolean',
    }[type];
    throw new InvalidFilterError(path, `expected ${expected}, got ${JSON.stringify(raw) ?? String(raw)}`);
  }
  return v;
}

/** The single `{field: operand}` entry of a leaf. */
function single(raw: unknown, path: string): [string, unknown] {
  if (!isPlainObject(raw)) throw new InvalidFilterError(path, 'expected an object naming one field');
  const entries = Object.entries(raw);
  if (entries.length !== 1) throw new InvalidFilterError(path, `expected exactly one field, got ${entries.length} (combine several with "and")`);
  return entries[0]!;
}

function parseNode(raw: unknown, mappings: Record<string, FieldMapping>, path: string, depth: number): FilterNode {
  if (depth > maxFilterDepth) throw new InvalidFilterError(path, `filters nest at most ${maxFilterDepth} deep`);
  if (!isPlainObject(raw)) throw new InvalidFilterError(path, 'expected an object such as {"eq": {"field": value}}');
  const keys = Object.keys(raw);
  if (keys.length !== 1) throw new InvalidFilterError(path, `expected exactly one operator (eq, in, range, exists, and, or, not), got ${keys.length}`);
  const op = keys[0]!;
  const operand = raw[op];
  const at = `${path}.${op}`;
  switch (op) {
    case 'and':
    case 'or': {
      if (!Array.isArray(operand) || operand.length === 0) throw new InvalidFilterError(at, 'expected a non-empty array of filters');
      return { op, filters: operand.map((child, i) => parseNode(child, mappings, `${at}[${i}]`, depth + 1)) };
    }
    case 'not':
      return { op, filter: parseNode(operand, mappings, at, depth + 1) };
    case 'eq': {
      const [field, v] = single(operand, at);
      const type = fieldType(field, mappings, `${at}.${field}`);
      return { op, field, type, value: value(type, v, `${at}.${field}`) };
    }
    case 'in': {
      const [field, list] = single(operand, at);
      const type = fieldType(field, mappings, `${at}.${field}`);
      if (!Array.isArray(list)) throw new InvalidFilterError(`${at}.${field}`, 'expected an array of values');
      if (list.length > maxInValues) throw new InvalidFilterError(`${at}.${field}`, `at most ${maxInValues} values`);
      return { op, field, type, values: list.map((v, i) => value(type, v, `${at}.${field}[${i}]`)) };
    }
    case 'range': {
      const [field, bounds] = single(operand, at);
      const type = fieldType(field, mappings, `${at}.${field}`);
      if (type !== 'number' && type !== 'date')
        throw new InvalidFilterError(`${at}.${field}`, `range applies to number and date fields; "${field}" is ${type}`);
      if (!isPlainObject(bounds)) throw new InvalidFilterError(`${at}.${field}`, 'expected {gt?, gte?, lt?, lte?}');
      const node: Extract<FilterNode, { op: 'range' }> = { op, field, type };
      for (const [bound, v] of Object.entries(bounds)) {
        if (!(rangeBounds as readonly string[]).includes(bound))
          throw new InvalidFilterError(`${at}.${field}.${bound}`, 'unknown bound; expected gt, gte, lt or lte');
        node[bound as (typeof rangeBounds)[number]] = value(type, v, `${at}.${field}.${bound}`) as number;
      }
      if (Object.keys(bounds).length === 0) throw new InvalidFilterError(`${at}.${field}`, 'expected at least one of gt, gte, lt, lte');
      if (node.gt !== undefined && node.gte !== undefined) throw new InvalidFilterError(`${at}.${field}`, 'gt and gte cannot both be given');
      if (node.lt !== undefined && node.lte !== undefined) throw new InvalidFilterError(`${at}.${field}`, 'lt and lte cannot both be given');
      return node;
    }
    case 'exists': {
      const field = typeof operand === 'string' ? operand : isPlainObject(operand) && Object.keys(operand).length === 1 ? operand.field : undefined;
      if (typeof field !== 'string') throw new InvalidFilterError(at, 'expected a field name or {"field": name}');
      return { op, field, type: fieldType(field, mappings, at) };
    }
    default:
      throw new InvalidFilterError(at, 'unknown operator; expected eq, in, range, exists, and, or or not');
  }
}

/** Validates a filter and normalises its values (dates to epoch ms, keywords and ids to strings). */
export function parseFilter(raw: unknown, mappings: Record<string, FieldMapping>, path = 'filter'): FilterNode {
  return parseNode(raw, mappings, path, 0);
}

/**
 * One segment's columns. Numeric columns (number and date fields, dates as epoch ms, NaN where
 * missing) are either one value per ordinal or, for multi-valued fields, each document's min and
 * max. With min/max a document matches eq x when min <= x <= max, and a range when [min, max]
 * overlaps it: exact for single values and one-sided ranges, and for a two-sided range a document
 * whose values straddle it (1 and 10 against 4..6) also matches. `matchesFilter` is exact.
 */
export interface FilterColumns {
  keyword(field: string): { postings(value: string): ArrayLike<number> } | undefined;
  numeric(field: string): Float64Array | { min: Float64Array; max: Float64Array } | undefined;
  /** 0 false, 1 true, 2 missing, 3 both (a multi-valued field holding true and false). */
  boolean(field: string): Uint8Array | undefined;
  /** Ordinal -> document id, for eq/in on `id`. */
  ids(): readonly string[];
  /** Documents with at least one value in the field. */
  exists(field: string): Bitset | undefined;
}

type Interval = { lo: number; loOpen: boolean; hi: number; hiOpen: boolean };

function interval(node: Extract<FilterNode, { op: 'range' }>): Interval {
  return {
    lo: node.gt ?? node.gte ?? -Infinity,
    loOpen: node.gt !== undefined,
    hi: node.lt ?? node.lte ?? Infinity,
    hiOpen: node.lt !== undefined,
  };
}

const aboveLo = (v: number, r: Interval): boolean => (r.loOpen ? v > r.lo : v >= r.lo);
const belowHi = (v: number, r: Interval): boolean => (r.hiOpen ? v < r.hi : v <= r.hi);

function evaluateLeaf(node: Exclude<FilterNode, { op: 'and' | 'or' | 'not' }>, columns: FilterColumns, docCount: number): Bitset {
  const set = emptySet(docCount);
  if (node.op === 'exists') {
    if (node.type === 'id') return fullSet(docCount);
    const exists = columns.exists(node.field);
    if (exists) set.set(exists.subarray(0, set.length));
    return set;
  }
  const values = node.op === 'eq' ? [node.value] : node.op === 'in' ? node.values : [];
  if (node.type === 'id') {
    const wanted = new Set(values);
    columns.ids().forEach((id, ord) => ord < docCount && wanted.has(id) && add(set, ord));
  } else if (node.type === 'keyword') {
    const column = columns.keyword(node.field);
    if (column) {
      for (const v of values) {
        const postings = column.postings(v as string);
        for (let i = 0; i < postings.length; i++) if (postings[i]! < docCount) add(set, postings[i]!);
      }
    }
  } else if (node.type === 'boolean') {
    const column = columns.boolean(node.field);
    const codes = new Set(values.flatMap((v) => (v === true ? [1, 3] : [0, 3])));
    if (column) for (let ord = 0; ord < docCount; ord++) if (codes.has(column[ord]!)) add(set, ord);
  } else {
    const column = columns.numeric(node.field);
    if (!column) return set;
    const [min, max] = column instanceof Float64Array ? [column, column] : [column.min, column.max];
    const ranges: Interval[] = node.op === 'range' ? [interval(node)] : (values as number[]).map((v) => ({ lo: v, loOpen: false, hi: v, hiOpen: false }));
    for (const r of ranges) {
      for (let ord = 0; ord < docCount; ord++) if (aboveLo(max[ord]!, r) && belowHi(min[ord]!, r)) add(set, ord);
    }
  }
  return set;
}

/** The documents of a segment (`docCount` ordinals) that pass `node`, as a bit-per-ordinal set. */
export function evaluateFilter(node: FilterNode, columns: FilterColumns, docCount: number): Bitset {
  switch (node.op) {
    case 'and': {
      const [first, ...rest] = node.filters.map((f) => evaluateFilter(f, columns, docCount));
      return rest.reduce(andInPlace, first!);
    }
    case 'or':
      return node.filters.reduce((set, f) => orInPlace(set, evaluateFilter(f, columns, docCount)), emptySet(docCount));
    case 'not':
      return andNotInPlace(fullSet(docCount), evaluateFilter(node.filter, columns, docCount));
    default:
      return evaluateLeaf(node, columns, docCount);
  }
}

/** Whether one prepared document passes `node`, with exact multi-valued semantics. */
export function matchesFilter(node: FilterNode, doc: { id?: string; fields: PreparedFields }): boolean {
  switch (node.op) {
    case 'and':
      return node.filters.every((f) => matchesFilter(f, doc));
    case 'or':
      return node.filters.some((f) => matchesFilter(f, doc));
    case 'not':
      return !matchesFilter(node.filter, doc);
    default: {
      const values = node.type === 'id' ? (doc.id === undefined ? [] : [doc.id]) : (doc.fields[node.field]?.values ?? []);
      if (node.op === 'exists') return values.length > 0;
      if (node.op === 'range') {
        const r = interval(node);
        return values.some((v) => typeof v === 'number' && aboveLo(v, r) && belowHi(v, r));
      }
      const wanted = node.op === 'eq' ? [node.value] : node.values;
      return values.some((v) => wanted.includes(v as FilterValue));
    }
  }
}
