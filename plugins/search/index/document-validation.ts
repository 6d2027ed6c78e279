import { flatten, isPlainObject, valuesAtPath } from './field-path.js';
import { vectorRangeProblem, type VectorMetricName } from './vector-range.js';
import { maxMappedFields, type FieldMapping, type FieldType } from './mappings.js';

/**
 * Checks one incoming document against an index's mappings and extracts the values the engine
 * indexes. Never throws: a bad document is `{ok: false, code, message, path?}` so the batch goes on.
 *
 * Values are read at each mapped dotted path through nested objects, through every element of an
 * array of objects on the way, and through literal dotted keys (`{"author.name": ...}`), as
 * Elasticsearch does. null and empty arrays mean "no value". Every type but geo_point may be
 * multi-valued (an array, nested arrays are flattened).
 */

export interface GeoPoint {
  lat: number;
  lon: number;
}

export type PreparedValue = string | number | boolean | GeoPoint;

/** Per indexed field path: its type and its normalised values (dates as epoch ms, keywords as strings). */
export type PreparedFields = Record<string, { type: FieldType; values: PreparedValue[] }>;

export type PreparedDocument =
  | {
      ok: true;
      /** The final string id, or undefined when the document has none (the engine generates one). */
      id: string | undefined;
      /** The document as given (a shallow copy), with `id` replaced by the final string id. */
      source: Record<string, unknown>;
      fields: PreparedFields;
      /** `_vector`, validated against `vectorDimensions`. */
      vector?: number[];
      /** Dynamic mode only: mappings inferred for paths this document introduced. */
      inferred?: Record<string, FieldMapping>;
    }
  | { ok: false; code: string; message: string; path?: string };

export interface PrepareOptions {
  dynamic: boolean;
  vectorDimensions?: number;
  vectorMetric?: VectorMetricName;
}

export const maxIdBytes = 512;
const maxInferenceDepth = 32;
const maxDate = 8.64e15;

/** A strict ISO 8601 date or date-time; without an offset the time is UTC. */
const isoDate = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 string (`2024-05-01`, `2024-05-01T10:00:00.5+02:00`) or epoch ms -> epoch ms. */
export function parseDate(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && Math.abs(value) <= maxDate ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = isoDate.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const date = new Date(0);
  date.setUTCFullYear(y!, mo! - 1, d);
  date.setUTCHours(h, mi, s, ms);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo! - 1 || date.getUTCDate() !== d) return undefined;
  if (h > 23 || mi > 59 || s > 59) return undefined;
  let offset = 0;
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2));
    if (oh > 23 || om > 59) return undefined;
    offset = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return date.getTime() - offset;
}

const latLonString = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/;

/** `{lat, lon}`, `"lat,lon"`, `[lon, lat]` (GeoJSON order) or a GeoJSON Point -> `{lat, lon}`. */
export function parseGeoPoint(value: unknown): GeoPoint | undefined {
  let lat: unknown;
  let lon: unknown;
  if (Array.isArray(value)) {
    if (value.length !== 2) return undefined;
    [lon, lat] = value;
  } else if (typeof value === 'string') {
    const m = latLonString.exec(value);
    if (!m) return undefined;
    [lat, lon] = [Number(m[1]), Number(m[2])];
  } else if (isPlainObject(value)) {
    if (value.type === 'Point' && Array.isArray(value.coordinates)) return parseGeoPoint(value.coordinates);
    ({ lat, lon } = value);
  }
  if (typeof lat !== 'number' || typeof lon !== 'number' || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) return undefined;
  return { lat, lon };
}

export { isPlainObject, valuesAtPath };

/** geo_point: `[lon, lat]` is one point, any other array is a list of points. */
function flattenPoints(values: unknown[], out: unknown[] = []): unknown[] {
  for (const v of values) {
    if (Array.isArray(v) && !(v.length === 2 && v.every((n) => typeof n === 'number'))) flattenPoints(v, out);
    else if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

const expected: Record<FieldType, string> = {
  text: 'a string',
  keyword: 'a string, number or boolean',
  number: 'a finite number',
  boolean: 'a boolean',
  date: 'an ISO 8601 date string or epoch milliseconds',
  geo_point: 'a geo point ({lat, lon}, "lat,lon" or [lon, lat]) with lat in [-90, 90] and lon in [-180, 180]',
};

function normaliseValue(type: FieldType, value: unknown): PreparedValue | undefined {
  switch (type) {
    case 'text':
      return typeof value === 'string' ? value : undefined;
    case 'keyword':
      return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ? String(value) : undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'date':
      return parseDate(value);
    case 'geo_point':
      return parseGeoPoint(value);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return `${kind} ${json.length > 40 ? `${json.slice(0, 40)}...` : json}`;
}

/** The mapping dynamic mode gives a first value: ISO date strings are dates, other strings text. */
export function inferFieldMapping(value: unknown): FieldMapping | undefined {
  if (typeof value === 'string') return parseDate(value) !== undefined ? { type: 'date', index: true } : { type: 'text', analyzer: 'standard', index: true };
  if (typeof value === 'number') return Number.isFinite(value) ? { type: 'number', index: true } : undefined;
  if (typeof value === 'boolean') return { type: 'boolean', index: true };
  return undefined;
}

function inferMappings(doc: Record<string, unknown>, mappings: Record<string, FieldMapping>): Record<string, FieldMapping> {
  const inferred: Record<string, FieldMapping> = {};
  // A new leaf may neither be, sit inside, nor hold a mapped (or already inferred) path; an object
  // may hold them but not sit inside one.
  const taken = new Set<string>();
  const containers = new Set<string>();
  const take = (path: string): void => {
    taken.add(path);
    for (let i = path.lastIndexOf('.'); i > 0; i = path.lastIndexOf('.', i - 1)) containers.add(path.slice(0, i));
  };
  Object.keys(mappings).forEach(take);
  const inside = (path: string): boolean => {
    for (let i = path.length; i > 0; i = path.lastIndexOf('.', i - 1)) if (taken.has(path.slice(0, i))) return true;
    return false;
  };
  const walk = (value: unknown, path: string, depth: number): void => {
    if (depth > maxInferenceDepth || inside(path)) return;
    if (Array.isArray(value)) {
      const values = flatten(value);
      if (isPlainObject(values[0])) for (const element of values) walk(element, path, depth + 1);
      else if (values[0] !== undefined) walk(values[0], path, depth + 1);
    } else if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) if (key !== '') walk(child, `${path}.${key}`, depth + 1);
    } else {
      const mapping = inferFieldMapping(value);
      if (mapping && !containers.has(path)) {
        inferred[path] = mapping;
        take(path);
      }
    }
  };
  for (const [key, value] of Object.entries(doc)) {
    if (key !== 'id' && key !== '_vector' && key !== '') walk(value, key, 0);
  }
  return inferred;
}

/**
 * Objects and arrays nested inside a document, at most (the document itself is level 1). Deeper
 * JSON cannot be stored or re-read without exhausting the stack in recursive serialisers.
 */
export const maxDocumentDepth = 64;

/** Whether `value` nests more than `limit` levels; iterative, so any depth is safe to check. */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

function fail(code: string, message: string, path?: string): PreparedDocument {
  return path === undefined ? { ok: false, code, message } : { ok: false, code, message, path };
}

/**
 * Validates `raw` against `mappings` and extracts its indexed values. Codes: `invalid_document`
 * (not an object), `invalid_document_id`, `invalid_vector`, `validation_failed` (with `path`).
 */
export function prepareDocument(raw: unknown, mappings: Record<string, FieldMapping>, options: PrepareOptions): PreparedDocument {
  if (!isPlainObject(raw)) return fail('invalid_document', `A document must be a JSON object, got ${describe(raw)}`);
  if (exceedsDepth(raw, maxDocumentDepth)) {
    return fail('document_too_deep', `The document nests objects and arrays more than ${maxDocumentDepth} levels deep`);
  }
  const source: Record<string, unknown> = { ...raw };

  let id: string | undefined;
  if (Object.hasOwn(raw, 'id') && raw.id !== undefined) {
    if (typeof raw.id === 'string') id = raw.id;
    else if (typeof raw.id === 'number' && Number.isFinite(raw.id)) id = String(raw.id);
    else return fail('invalid_document_id', `id must be a string or a finite number, got ${describe(raw.id)}`, 'id');
    if (id === '') return fail('invalid_document_id', 'id must not be empty', 'id');
    // Browsers, fetch() and proxies remove dot segments from paths: such a document could never be
    // read or deleted by id through them.
    if (id === '.' || id === '..') return fail('invalid_document_id', `id must not be "${id}" (a dot segment in URLs)`, 'id');
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f]/.test(id)) return fail('invalid_document_id', 'id must not contain control characters (U+0000 to U+001F)', 'id');
    if (!(id as string & { isWellFormed(): boolean }).isWellFormed())
      return fail('invalid_document_id', 'id must be well-formed Unicode (it holds a lone surrogate)', 'id');
    if (Buffer.byteLength(id, 'utf8') > maxIdBytes) return fail('invalid_document_id', `id is longer than ${maxIdBytes} bytes in UTF-8`, 'id');
    source.id = id;
  }

  let vector: number[] | undefined;
  if (raw._vector !== undefined && raw._vector !== null) {
    const dims = options.vectorDimensions;
    if (dims === undefined) return fail('invalid_vector', '_vector was given but the index has no vectorDimensions setting', '_vector');
    const v = raw._vector;
    if (!Array.isArray(v) || v.length !== dims || !v.every((n) => typeof n === 'number' && Number.isFinite(n))) {
      return fail('invalid_vector', `_vector must be an array of ${dims} finite numbers, got ${describe(v)}`, '_vector');
    }
    const problem = vectorRangeProblem(v, options.vectorMetric ?? 'cosine');
    if (problem) return fail('invalid_vector', `_vector ${problem}`, '_vector');
    vector = v as number[];
  }

  let inferred: Record<string, FieldMapping> | undefined;
  let effective = mappings;
  if (options.dynamic) {
    const found = inferMappings(raw, mappings);
    const count = Object.keys(found).length;
    if (count > 0) {
      if (Object.keys(mappings).length + count > maxMappedFields) {
        return fail('validation_failed', `Dynamic mapping would exceed ${maxMappedFields} mapped fields`);
      }
      inferred = found;
      effective = { ...mappings, ...found };
    }
  }

  const fields: PreparedFields = {};
  for (const [path, mapping] of Object.entries(effective)) {
    if (path === 'id' && id !== undefined) {
      if (mapping.index) fields.id = { type: mapping.type, values: [id] };
      continue;
    }
    const found = valuesAtPath(raw, path);
    const flat = mapping.type === 'geo_point' ? flattenPoints(found) : flatten(found);
    const values: PreparedValue[] = [];
    for (const value of flat) {
      const normalised = normaliseValue(mapping.type, value);
      if (normalised === undefined) {
        return fail('validation_failed', `Field "${path}" (${mapping.type}) expects ${expected[mapping.type]}, got ${describe(value)}`, path);
      }
      values.push(normalised);
    }
    if (values.length > 0 && mapping.index) fields[path] = { type: mapping.type, values };
  }

  const result: PreparedDocument = { ok: true, id, source, fields };
  if (vector) result.vector = vector;
  if (inferred) result.inferred = inferred;
  return result;
}
