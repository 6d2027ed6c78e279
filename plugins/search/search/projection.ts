import { isPlainObject } from '../index/document-validation.js';
import { InvalidProjectionError } from '../search-errors.js';

/**
 * Hit sources shaped by `projection` (dotted path -> 1 include / 0 exclude) or `select` (paths to
 * include), with MongoDB's rules:
 * - 1s and 0s are not mixed, except `id`: in include mode `id` comes along unless `id: 0`; in
 *   exclude mode `id: 0` drops it. `{id: 1}` alone returns only the id.
 * - A path reaching an array of objects applies to each element. When including, elements that
 *   are not objects are dropped and objects without the path become `{}`; when excluding, they stay.
 * - `_vector` is left out unless it is included explicitly (`{_vector: 1}` or `select: ["_vector"]`).
 * The input is never mutated; the output shares the input's untouched sub-objects.
 */

type PathTree = Map<string, PathTree | true>;

export interface CompiledProjection {
  mode: 'all' | 'include' | 'exclude';
  tree: PathTree;
}

function addPath(tree: PathTree, path: string): void {
  const segments = path.split('.');
  let node = tree;
  for (let i = 0; i < segments.length; i++) {
    const existing = node.get(segments[i]!);
    if (existing === true) return;
    if (i === segments.length - 1) {
      node.set(segments[i]!, true);
      return;
    }
    if (existing === undefined) node.set(segments[i]!, (node = new Map()));
    else node = existing;
  }
}

function checkPath(path: string, where: string): void {
  if (path === '' || path.split('.').some((s) => s === '')) {
    throw new InvalidProjectionError(`${where}: ${JSON.stringify(path)} is not a field path (non-empty names joined by dots)`, where);
  }
}

/** Validates `projection` / `select` once per request; throws `invalid_projection` (400). */
export function compileProjection(projection?: unknown, select?: unknown): CompiledProjection {
  if (projection !== undefined && select !== undefined) {
    throw new InvalidProjectionError('Give either projection or select, not both');
  }
  let entries: Array<[string, 0 | 1]>;
  if (select !== undefined) {
    if (!Array.isArray(select)) throw new InvalidProjectionError('select must be an array of field paths', 'select');
    entries = select.map((path, i) => {
      if (typeof path !== 'string') throw new InvalidProjectionError(`select[${i}] must be a field path string`, `select[${i}]`);
      return [path, 1];
    });
    entries.forEach(([path], i) => checkPath(path, `select[${i}]`));
    if (entries.length === 0) return { mode: 'include', tree: new Map([['id', true]]) };
  } else if (projection !== undefined) {
    if (!isPlainObject(projection)) throw new InvalidProjectionError('projection must be an object of field path -> 0 or 1', 'projection');
    entries = Object.entries(projection).map(([path, v]) => {
      checkPath(path, `projection.${path}`);
      if (v !== 0 && v !== 1 && typeof v !== 'boolean') {
        throw new InvalidProjectionError(`projection.${path} must be 1 (include) or 0 (exclude), got ${JSON.stringify(v)}`, `projection.${path}`);
      }
      return [path, v === 1 || v === true ? 1 : 0];
    });
  } else {
    entries = [];
  }
  if (entries.length === 0) return { mode: 'all', tree: new Map() };

  const others = entries.filter(([path]) => path !== 'id');
  const modes = new Set(others.map(([, v]) => v));
  if (modes.size > 1) {
    throw new InvalidProjectionError('projection cannot mix 1 (include) and 0 (exclude); only id may differ', 'projection');
  }
  const id = entries.find(([path]) => path === 'id')?.[1];
  const include = others.length > 0 ? others[0]![1] === 1 : id === 1;
  const tree: PathTree = new Map();
  for (const [path] of others) addPath(tree, path);
  if (include) {
    if (id !== 0) tree.set('id', true);
    return { mode: 'include', tree };
  }
  if (id === 0) tree.set('id', true);
  return { mode: 'exclude', tree };
}

function include(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) {
    return value.filter((v) => Array.isArray(v) || isPlainObject(v)).map((v) => include(v, tree));
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    if (!Object.hasOwn(source, key)) continue;
    const v = source[key];
    if (sub === true) setOwn(out, key, v);
    else if (Array.isArray(v) || isPlainObject(v)) setOwn(out, key, include(v, sub));
  }
  return out;
}

function exclude(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((v) => (Array.isArray(v) || isPlainObject(v) ? exclude(v, tree) : v));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const sub = tree.get(key);
    if (sub === true) continue;
    setOwn(out, key, sub !== undefined && (Array.isArray(v) || isPlainObject(v)) ? exclude(v, sub) : v);
  }
  return out;
}

/** Shapes one stored source by a compiled projection. */
export function projectSource(source: Record<string, unknown>, compiled: CompiledProjection): Record<string, unknown> {
  if (compiled.mode === 'include') return include(source, compiled.tree) as Record<string, unknown>;
  const tree = compiled.mode === 'all' ? new Map<string, PathTree | true>() : new Map(compiled.tree);
  tree.set('_vector', true);
  return exclude(source, tree) as Record<string, unknown>;
}

/** `compileProjection` then `projectSource`: validates on every call, so compile once per request when you can. */
export function applyProjection(source: Record<string, unknown>, projection?: unknown, select?: unknown): Record<string, unknown> {
  return projectSource(source, compileProjection(projection, select));
}

/** `out[key] = value` as an own property, even for "__proto__" (which plain assignment would treat as the prototype). */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
