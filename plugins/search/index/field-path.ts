/**
 * The one reader of a field's values in a stored source, for every phase that reads sources:
 * indexing (document-validation.ts), sorting on a field without a column (sort-columns.ts),
 * highlighting, autocomplete and visual extraction. A dotted path goes through nested objects,
 * through every element of an array of objects on the way, and through literal dotted keys
 * (`{"author.name": ...}`), as Elasticsearch reads it; own properties only, so a path named
 * "constructor" never finds Object.prototype's.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lookup(value: unknown, segments: string[], from: number, out: unknown[]): void {
  if (Array.isArray(value)) {
    for (const element of value) lookup(element, segments, from, out);
    return;
  }
  if (!isPlainObject(value)) return;
  for (let to = from + 1; to <= segments.length; to++) {
    const key = to === from + 1 ? segments[from]! : segments.slice(from, to).join('.');
    if (!Object.hasOwn(value, key)) continue;
    if (to === segments.length) out.push(value[key]);
    else lookup(value[key], segments, to, out);
  }
}

/**
 * The raw values at a dotted path, one entry per place the path reaches (an entry may itself be an
 * array: the field's values there). `valuesAtPath({a: [{b: 1}, {b: [2, 3]}]}, 'a.b')` is `[1, [2, 3]]`.
 */
export function valuesAtPath(source: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  lookup(source, path.split('.'), 0, out);
  return out;
}

/** Nested arrays flattened, null and undefined dropped: the values a field holds. */
export function flatten(values: unknown[], out: unknown[] = []): unknown[] {
  for (const v of values) {
    if (Array.isArray(v)) flatten(v, out);
    else if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/** The values the index holds for `path` in a source, in document order: `{a: [{b: 1}, {b: [2, 3]}]}`, 'a.b' is `[1, 2, 3]`. */
export function fieldValues(source: unknown, path: string): unknown[] {
  return flatten(valuesAtPath(source, path));
}
