import { z } from 'zod';
import { fieldTypes, type FieldMapping, type FieldMappingInput, type FieldType, type Mappings } from './field-mapping.js';
import { ValidationError, type FieldIssue } from 'tessera-runtime/plugin';
import { analyzerNames, isAnalyzerName } from '../analysis/analyzer.js';
import { embedderSettingSchema, LATEST_BUILTIN_MODEL, type EmbedderSetting } from '../embedders/embedder-setting.js';
import { parseMinimumShouldMatch } from '../query/minimum-should-match.js';
import { InvalidIndexNameError, InvalidMappingError, MappingConflictError } from '../search-errors.js';
import { isVisualPath, visualMappings, withVisualMappings } from '../image/visual-mappings.js';

/**
 * Index definitions: field mappings, settings, and the rules for changing them.
 *
 * Field paths are keys such as `title` or `author.name`; a dotted path addresses nested objects in
 * documents (and each element of an array of objects on the way). There is no `object` type, so a
 * path may not sit inside another mapped path (`author` and `author.name` together are invalid).
 *
 * Dynamic mapping (`settings.dynamic`, default false). When false, unmapped fields are stored in the
 * source but not indexed. When true, the first value seen for an unmapped leaf path decides its
 * mapping (`inferFieldMapping` in document-validation.ts), like Elasticsearch's dynamic mapping with date detection:
 * - a string in strict ISO 8601 form (`2024-05-01`, `2024-05-01T10:00:00Z`) -> `date`;
 * - any other string -> `text` (`standard` analyzer);
 * - a finite number -> `number`; a boolean -> `boolean`;
 * - an object -> its keys, as dotted paths; an array -> its first non-null element;
 * - null and empty arrays infer nothing; `geo_point` is never inferred (map it explicitly).
 * A later value of another type is then a per-document `validation_failed`, as in Elasticsearch.
 */

export { fieldTypes, type FieldMapping, type FieldMappingInput, type FieldType, type Mappings } from './field-mapping.js';

/** At most this many mapped fields per index (Elasticsearch's default total-fields limit). */
export const maxMappedFields = 1000;
const maxPathLength = 256;
/** Paths the engine gives a meaning of its own: the document id and its embedding. */
const reservedPaths = new Set(['_vector']);

export const fieldMappingInputSchema = z
  .strictObject({ type: z.enum(fieldTypes), analyzer: z.string().optional(), index: z.boolean().optional(), image: z.boolean().optional() })
  .superRefine((m, ctx) => {
    if (m.image === true && m.type !== 'keyword') {
      ctx.addIssue({ code: 'custom', path: ['image'], message: `an image field is a keyword field (its value references the image), not ${m.type}` });
    }
    if (m.analyzer === undefined) return;
    if (m.type !== 'text') {
      ctx.addIssue({ code: 'custom', path: ['analyzer'], message: `an analyzer applies to text fields only, not ${m.type}` });
    } else if (!isAnalyzerName(m.analyzer)) {
      ctx.addIssue({
        code: 'custom',
        path: ['analyzer'],
        params: { code: 'unknown_analyzer' },
        message: `unknown analyzer "${m.analyzer}"; expected one of: ${analyzerNames.join(', ')}`,
      });
    }
  });

/** Fills the defaults: `index: true`, and `analyzer: 'standard'` for text. */
export function normaliseFieldMapping(m: FieldMappingInput): FieldMapping {
  if (m.type === 'text') return { type: 'text', analyzer: m.analyzer ?? 'standard', index: m.index ?? true };
  return m.image === true ? { type: m.type, index: m.index ?? true, image: true } : { type: m.type, index: m.index ?? true };
}

export const fieldMappingSchema = fieldMappingInputSchema.transform(normaliseFieldMapping);

/** The problems of a set of field paths, as `[path, message]` relative to the mappings object. */
function pathProblems(paths: string[]): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  const all = new Set(paths);
  if (paths.length > maxMappedFields) problems.push(['', `at most ${maxMappedFields} fields may be mapped, got ${paths.length}`]);
  for (const path of paths) {
    if (path.length === 0 || path.length > maxPathLength || path.split('.').some((s) => s === '')) {
      problems.push([path, `a field path is 1 to ${maxPathLength} characters of non-empty dot-separated names`]);
    } else if (reservedPaths.has(path)) {
      problems.push([path, `"${path}" is reserved for the document's vector`]);
    } else if (isVisualPath(path) && !(path in visualMappings)) {
      problems.push([path, `"${path}" is reserved for the metadata of image fields`]);
    } else {
      const segments = path.split('.');
      for (let i = 1; i < segments.length; i++) {
        const parent = segments.slice(0, i).join('.');
        if (all.has(parent)) problems.push([path, `"${path}" is inside mapped field "${parent}"; a field cannot be both a value and an object`]);
      }
    }
  }
  return problems;
}

function mappingsSchemaOf<T extends z.ZodType>(field: T) {
  return z.record(z.string(), field).superRefine((mappings, ctx) => {
    const entries = Object.entries(mappings as Record<string, { type: FieldType }>);
    for (const [path, message] of pathProblems(entries.map(([p]) => p))) {
      ctx.addIssue({ code: 'custom', path: path === '' ? [] : [path], message });
    }
    for (const [path, m] of entries) {
      if (path === 'id' && m.type !== 'keyword') {
        ctx.addIssue({ code: 'custom', path: [path, 'type'], message: 'the document id can only be mapped as keyword' });
      }
    }
  });
}

export const mappingsSchema = mappingsSchemaOf(fieldMappingSchema);
export const mappingsInputSchema = mappingsSchemaOf(fieldMappingInputSchema);

const settingsShape = {
  vectorDimensions: z.number().int().min(1).max(4096),
  vectorMetric: z.enum(['cosine', 'dot_product', 'euclidean']),
  /** `int8`: scan int8 codes (4x fewer bytes) and rescore the best candidates in f32. */
  vectorQuantization: z.enum(['none', 'int8']),
  /**
   * How each segment's vectors are searched: `flat` scans them all (exact); `hnsw` builds a graph
   * per segment in the background (approximate, and far faster past ~50k vectors).
   */
  vectorIndex: z.union([
    z.strictObject({ type: z.literal('flat') }),
    z.strictObject({
      type: z.literal('hnsw'),
      /** Links per node (level 0 keeps 2m). */
      m: z.number().int().min(4).max(64).default(16),
      /** Beam width while building: higher builds slower and finds better links. */
      efConstruction: z.number().int().min(16).max(2000).default(200),
      /** Default beam width of a search; a query's `efSearch` overrides it. */
      efSearch: z.number().int().min(1).max(10_000).default(100),
    }),
  ]),
  defaultOperator: z.enum(['AND', 'OR']),
  minimumShouldMatch: z.string().superRefine((value, ctx) => {
    try {
      parseMinimumShouldMatch(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', params: { code: 'invalid_minimum_should_match' }, message: (error as Error).message });
    }
  }),
  enableVisualExtraction: z.boolean(),
  enableKnowledgeGraph: z.boolean(),
  autoEmbed: z.boolean(),
  /** Which embedder autoEmbed uses (embedders/embedder-setting.ts). */
  embedder: embedderSettingSchema,
  k1: z.number().min(0).max(3),
  b: z.number().min(0).max(1),
  dynamic: z.boolean(),
  /** Where autocomplete finds titles and categories (docs/autocomplete.md). */
  autocomplete: z.strictObject({
    /** Default: the first text field named `title`, then `name`. */
    titleField: z.string().min(1).max(256).optional(),
    /** Default: every keyword field but `id`. */
    categoryFields: z.array(z.string().min(1).max(256)).max(100).optional(),
  }),
};

/** Settings with their defaults filled; `vectorDimensions`, `vectorMetric` and `minimumShouldMatch` stay optional. */
export const indexSettingsSchema = z.strictObject({
  vectorDimensions: settingsShape.vectorDimensions.optional(),
  vectorMetric: settingsShape.vectorMetric.optional(),
  vectorQuantization: settingsShape.vectorQuantization.default('none'),
  vectorIndex: settingsShape.vectorIndex.default({ type: 'flat' }),
  defaultOperator: settingsShape.defaultOperator.default('OR'),
  minimumShouldMatch: settingsShape.minimumShouldMatch.optional(),
  enableVisualExtraction: settingsShape.enableVisualExtraction.default(true),
  enableKnowledgeGraph: settingsShape.enableKnowledgeGraph.default(true),
  autoEmbed: settingsShape.autoEmbed.default(false),
  embedder: settingsShape.embedder.default({ type: 'builtin', model: LATEST_BUILTIN_MODEL }),
  k1: settingsShape.k1.default(1.2),
  b: settingsShape.b.default(0.75),
  dynamic: settingsShape.dynamic.default(false),
  autocomplete: settingsShape.autocomplete.optional(),
});
export type IndexSettings = z.output<typeof indexSettingsSchema>;

/** A settings change: only the keys given change, so nothing here has a default. */
export const indexSettingsPatchSchema = z.strictObject(settingsShape).partial();
export type IndexSettingsPatch = z.output<typeof indexSettingsPatchSchema>;

export const createIndexSchema = z.strictObject({
  name: z.string(),
  mappings: mappingsSchema.default({}),
  settings: indexSettingsSchema.default(() => indexSettingsSchema.parse({})),
});
export type CreateIndexInput = z.output<typeof createIndexSchema>;

/** PATCH: mappings keep what the client wrote (an absent analyzer or index flag means "unchanged"). */
export const patchIndexSchema = z.strictObject({
  mappings: mappingsInputSchema.optional(),
  settings: indexSettingsPatchSchema.optional(),
});
export type PatchIndexInput = z.output<typeof patchIndexSchema>;

const indexNamePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Throws `invalid_index_name` (400) unless `name` is 1..64 of [a-z0-9_-], not starting with - or _. */
export function validateIndexName(name: unknown): string {
  if (typeof name !== 'string' || !indexNamePattern.test(name)) throw new InvalidIndexNameError(name);
  return name;
}

function issuePath(path: PropertyKey[]): string {
  return path.map(String).join('.');
}

function toFieldIssues(issues: z.core.$ZodIssue[]): FieldIssue[] {
  return issues.map((issue) => {
    const code = (issue as { params?: { code?: string } }).params?.code;
    return code === undefined ? { path: issuePath(issue.path), message: issue.message } : { path: issuePath(issue.path), message: issue.message, code };
  });
}

/** Mapping problems throw `invalid_mapping`; any other problem throws `validation_failed`. */
function throwIssues(issues: z.core.$ZodIssue[]): never {
  const all = toFieldIssues(issues);
  const mapping = all.filter((i) => i.path === 'mappings' || i.path.startsWith('mappings.'));
  if (mapping.length > 0) throw new InvalidMappingError(mapping);
  throw new ValidationError(`Invalid index definition: ${all.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`, all);
}

/**
 * Validates a `POST /v1/indexes` body. Throws, in this order: `invalid_index_name` (400),
 * `invalid_mapping` (400) and `validation_failed` (400, settings and unknown keys).
 */
export function parseCreateIndex(raw: unknown): CreateIndexInput {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'name' in raw) validateIndexName(raw.name);
  const result = createIndexSchema.safeParse(raw);
  if (!result.success) throwIssues(result.error.issues);
  return { ...result.data, mappings: withVisualMappings(result.data.mappings), settings: withBuiltinModel(result.data.settings) };
}

/** Validates a `PATCH /v1/indexes/{name}` body; throws like `parseCreateIndex`. */
export function parsePatchIndex(raw: unknown): PatchIndexInput {
  const result = patchIndexSchema.safeParse(raw);
  if (!result.success) throwIssues(result.error.issues);
  return result.data.settings ? { ...result.data, settings: withBuiltinModel(result.data.settings) } : result.data;
}

/**
 * A builtin embedder as written by a client names its model explicitly once stored, so that a
 * later default never changes how an existing index's vectors are queried.
 */
function withBuiltinModel<T extends { embedder?: EmbedderSetting }>(settings: T): T {
  const e = settings.embedder;
  if (e === 'builtin') return { ...settings, embedder: { type: 'builtin', model: LATEST_BUILTIN_MODEL } };
  return typeof e === 'object' && e.type === 'builtin' && e.model === undefined ? { ...settings, embedder: { ...e, model: LATEST_BUILTIN_MODEL } } : settings;
}

export interface MergedMappings {
  mappings: Mappings;
  /** True when an existing field's analyzer or `index` flag changed: its documents must be reanalysed. */
  needsReindex: boolean;
  added: string[];
  /** Existing fields whose analyzer or `index` flag changed. */
  changed: string[];
}

/**
 * Applies a mappings patch. New fields are added; an existing field keeps its type (otherwise
 * `mapping_conflict`, 409) and takes the patch's analyzer and index flag where given. Throws
 * `invalid_mapping` when a new path would sit inside another (or hold one) or the limit is passed.
 */
export function mergeMappings(current: Mappings, patch: Record<string, FieldMappingInput>): MergedMappings {
  const mappings: Mappings = { ...current };
  const added: string[] = [];
  const changed: string[] = [];
  for (const [field, input] of Object.entries(patch)) {
    const existing = current[field];
    if (existing === undefined) {
      mappings[field] = normaliseFieldMapping(input);
      added.push(field);
      continue;
    }
    if (existing.type !== input.type) throw new MappingConflictError(field, existing.type, input.type);
    const next = normaliseFieldMapping({
      type: existing.type,
      analyzer: input.analyzer ?? existing.analyzer,
      index: input.index ?? existing.index,
      image: input.image ?? existing.image,
    });
    if (next.analyzer !== existing.analyzer || next.index !== existing.index) {
      mappings[field] = next;
      changed.push(field);
    } else if (next.image !== existing.image) {
      // Applies to documents written from now on; nothing indexed changes, so no re-index.
      mappings[field] = next;
    }
  }
  for (const [path, m] of Object.entries(withVisualMappings(mappings))) {
    if (mappings[path] === undefined) {
      mappings[path] = m;
      added.push(path);
    }
  }
  // The current mappings were valid, so any path problem now involves an added field.
  const problems = added.length > 0 ? pathProblems(Object.keys(mappings)) : [];
  if (problems.length > 0) {
    throw new InvalidMappingError(problems.map(([path, message]) => ({ path: path === '' ? 'mappings' : `mappings.${path}`, message })));
  }
  return { mappings, needsReindex: changed.length > 0, added, changed };
}

/** Applies a settings patch; `changed` lists the keys whose value differs. */
export function mergeSettings(current: IndexSettings, patch: IndexSettingsPatch): { settings: IndexSettings; changed: string[] } {
  const settings: IndexSettings = { ...current };
  const changed: string[] = [];
  for (const [key, value] of Object.entries(patch) as Array<[keyof IndexSettings, unknown]>) {
    // Objects (the embedder) compare by value: re-sending the same setting changes nothing.
    if (value === undefined || settings[key] === value || (typeof value === 'object' && JSON.stringify(settings[key]) === JSON.stringify(value))) continue;
    (settings as Record<string, unknown>)[key] = value;
    changed.push(key);
  }
  return { settings, changed };
}
